// The shape of an agent's voice settings and their defaults (README "Voice and video"), written once
// for both sides: the server (src/agents/voice-config.ts validates and resolves them) and the
// widget's client (src/widget/client, bundled for the browser), so this file imports nothing.

export interface VoiceConfig {
  enabled: boolean;
  language: string;
  stt: "server" | "browser";
  tts: "server" | "browser" | "off";
  voice: string | null;
  rate: number;
  max_seconds: number;
  auto_listen: boolean;
}

export const VOICE_DEFAULTS: Readonly<VoiceConfig> = {
  enabled: false,
  language: "en-US",
  stt: "browser",
  tts: "browser",
  voice: null,
  rate: 1,
  max_seconds: 30,
  auto_listen: false,
};
