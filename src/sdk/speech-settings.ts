// An org's own speech servers (README "Voice and video"), over the operator's STT_*/TTS_*: each
// an OpenAI-compatible base URL, a model and an optional key. As with an org's model
// (src/agents/llm-settings.ts): the key is encrypted with deps.cipher (associated data names the
// org and the field) and never returned; a base URL is checked by the outbound guard when saved
// and again on every request (./speech.ts); changing a base URL without a key forgets the stored
// one, so a key is never sent anywhere but where it was saved for; every change is in the
// activity log. This file is the only writer of org_speech_settings.
import { eq } from "drizzle-orm";
import { recordActivity } from "../activity/log.ts";
import type { Actor } from "../kit/actor.ts";
import { orgSpeechSettings } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { BlockedUrlError, checkUrl } from "../net/guard.ts";

export const SPEECH_SETTING_LIMITS = { baseUrl: 2048, model: 200, apiKey: 512, voice: 64 } as const;

export interface SpeechServerInput {
  base_url: string;
  model?: string | null;
  /** A new key; null removes it; absent keeps it (unless base_url changes). */
  api_key?: string | null;
  /** Text to speech only: the voice when the agent names none. */
  voice?: string | null;
}

export interface SpeechSettingsInput {
  stt: SpeechServerInput | null;
  tts: SpeechServerInput | null;
}

/** One resolved server: where, which model, the key in clear (for the request only), and whether it is the operator's. */
export interface SpeechServer {
  baseUrl: string;
  model: string;
  apiKey?: string;
  voice: string;
  trusted: boolean;
}

const keyContext = (kind: "stt" | "tts", orgId: string) => `org_speech_settings.${kind}_api_key:${orgId}`;

async function row(deps: Pick<Deps, "db">, orgId: string) {
  const [found] = await deps.db.select().from(orgSpeechSettings).where(eq(orgSpeechSettings.orgId, orgId));
  return found ?? null;
}

/** The server that answers the org's `kind` requests: its own, else the operator's, else null. */
export async function speechServerFor(deps: Pick<Deps, "cipher" | "config" | "db">, orgId: string, kind: "stt" | "tts"): Promise<SpeechServer | null> {
  const own = await row(deps, orgId);
  const base = kind === "stt" ? own?.sttBaseUrl : own?.ttsBaseUrl;
  if (own && base) {
    const key = kind === "stt" ? own.sttApiKey : own.ttsApiKey;
    const model = (kind === "stt" ? own.sttModel : own.ttsModel) ?? (kind === "stt" ? "whisper-1" : "tts-1");
    return {
      baseUrl: base,
      model,
      apiKey: key ? deps.cipher.decrypt(key, keyContext(kind, orgId)) : undefined,
      voice: own.ttsVoice ?? "alloy",
      trusted: false,
    };
  }
  const operator = deps.config.speech[kind];
  if (!operator) return null;
  return { baseUrl: operator.baseUrl, model: operator.model, apiKey: operator.apiKey, voice: deps.config.speech.tts?.voice ?? "alloy", trusted: true };
}

/** Whether the org has a speech-to-text and a text-to-speech server (its own or the operator's). */
export async function speechAvailable(deps: Pick<Deps, "config" | "db">, orgId: string): Promise<{ stt: boolean; tts: boolean }> {
  if (deps.config.speech.stt && deps.config.speech.tts) return { stt: true, tts: true };
  const own = await row(deps, orgId);
  return { stt: Boolean(deps.config.speech.stt || own?.sttBaseUrl), tts: Boolean(deps.config.speech.tts || own?.ttsBaseUrl) };
}

/** What a view says: the URLs, models and voice, and only whether a key is set. */
export async function speechSettingsView(deps: Pick<Deps, "config" | "db">, orgId: string) {
  const own = await row(deps, orgId);
  const server = (kind: "stt" | "tts") => {
    const base = kind === "stt" ? own?.sttBaseUrl : own?.ttsBaseUrl;
    if (!own || !base) return null;
    return {
      base_url: base,
      model: kind === "stt" ? own.sttModel : own.ttsModel,
      api_key_set: (kind === "stt" ? own.sttApiKey : own.ttsApiKey) !== null,
      ...(kind === "tts" ? { voice: own.ttsVoice } : {}),
    };
  };
  return { stt: server("stt"), tts: server("tts"), operator: { stt: Boolean(deps.config.speech.stt), tts: Boolean(deps.config.speech.tts) } };
}

async function checkServer(deps: Pick<Deps, "guard">, problems: ErrorDetail[], path: string, input: SpeechServerInput | null): Promise<void> {
  if (!input) return;
  const L = SPEECH_SETTING_LIMITS;
  if (input.base_url.length > L.baseUrl) problems.push({ path: `${path}/base_url`, message: `must be at most ${L.baseUrl} characters` });
  else {
    try {
      const { url } = await checkUrl(input.base_url, deps.guard);
      if (url.hash || url.search) problems.push({ path: `${path}/base_url`, message: "must have no query or fragment" });
    } catch (error) {
      if (!(error instanceof BlockedUrlError)) throw error;
      problems.push({ path: `${path}/base_url`, message: error.message });
    }
  }
  if (input.api_key != null && !/^[^\s\x00-\x1f\x7f]{1,512}$/.test(input.api_key))
    problems.push({ path: `${path}/api_key`, message: `must be 1 to ${L.apiKey} characters without spaces or control characters` });
  if (input.voice != null && !/^[A-Za-z0-9 ._()-]{1,64}$/.test(input.voice))
    problems.push({ path: `${path}/voice`, message: "must be 1 to 64 letters, digits, spaces or . _ ( ) -" });
}

/** Replaces the org's speech servers (null: the operator's); 400 with the problems otherwise. */
export async function setSpeechSettings(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "now">,
  orgId: string,
  actor: Actor,
  input: SpeechSettingsInput,
) {
  const problems: ErrorDetail[] = [];
  await checkServer(deps, problems, "/stt", input.stt);
  await checkServer(deps, problems, "/tts", input.tts);
  if (problems.length > 0) throw AppError.badRequest("The speech settings are invalid.", problems);
  const previous = await row(deps, orgId);
  const trim = (url: string) => url.replace(/\/+$/, "");
  const key = (kind: "stt" | "tts", server: SpeechServerInput | null): string | null => {
    if (!server || server.api_key === null) return null;
    if (server.api_key !== undefined) return deps.cipher.encrypt(server.api_key, keyContext(kind, orgId));
    const before = kind === "stt" ? previous?.sttBaseUrl : previous?.ttsBaseUrl;
    return before === trim(server.base_url) ? ((kind === "stt" ? previous?.sttApiKey : previous?.ttsApiKey) ?? null) : null;
  };
  const values = {
    sttBaseUrl: input.stt ? trim(input.stt.base_url) : null,
    sttModel: input.stt?.model ?? null,
    sttApiKey: key("stt", input.stt),
    ttsBaseUrl: input.tts ? trim(input.tts.base_url) : null,
    ttsModel: input.tts?.model ?? null,
    ttsVoice: input.tts?.voice ?? null,
    ttsApiKey: key("tts", input.tts),
    updatedAt: deps.now(),
  };
  await deps.db.transaction(async (tx) => {
    await tx
      .insert(orgSpeechSettings)
      .values({ orgId, ...values })
      .onConflictDoUpdate({ target: orgSpeechSettings.orgId, set: values });
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action: "speech_settings.changed",
        objectType: "org",
        objectId: orgId,
        summary: { stt: values.sttBaseUrl !== null, tts: values.ttsBaseUrl !== null },
      },
    );
  });
  return speechSettingsView(deps, orgId);
}
