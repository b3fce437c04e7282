// Dashboard API of an org's speech servers (role org:manage): GET, PUT and DELETE /api/speech,
// over ./speech-settings.ts (README "Voice and video").
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { SPEECH_SETTING_LIMITS as L, setSpeechSettings, speechSettingsView } from "./speech-settings.ts";

const Server = (tts: boolean) =>
  t.Object(
    {
      base_url: t.String({
        minLength: 1,
        maxLength: L.baseUrl,
        description: "The server's API root, e.g. https://api.openai.com/v1; checked by the outbound guard.",
      }),
      model: t.Optional(t.Union([t.String({ minLength: 1, maxLength: L.model }), t.Null()])),
      api_key: t.Optional(
        t.Union([t.String({ maxLength: L.apiKey }), t.Null()], { description: "Write-only; null removes it; absent keeps it while base_url is unchanged." }),
      ),
      ...(tts ? { voice: t.Optional(t.Union([t.String({ maxLength: L.voice }), t.Null()])) } : {}),
    },
    { additionalProperties: false },
  );
const Body = t.Object({ stt: t.Union([Server(false), t.Null()]), tts: t.Union([Server(true), t.Null()]) }, { additionalProperties: false });
const tags = ["Widget settings"];
/** A server the org set (text to speech also names its voice), or null: the operator's. */
const ServerView = t.Union([
  t.Object({ base_url: t.String(), model: t.Union([t.String(), t.Null()]), api_key_set: t.Boolean(), voice: t.Optional(t.Union([t.String(), t.Null()])) }),
  t.Null(),
]);
/** What GET, PUT and DELETE answer: the org's own servers (never a key) and whether the operator has any. */
const View = t.Object({ stt: ServerView, tts: ServerView, operator: t.Object({ stt: t.Boolean(), tts: t.Boolean() }) });

export function speechSettingsRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "now">) {
  const admin = async (request: Request) => {
    const { orgId, principal } = await requireMember(deps, request, "org:manage");
    return { orgId, actor: memberActor(principal.member.id) };
  };
  return new Elysia({ name: "speech-settings" })
    .get("/api/speech", async ({ request }) => speechSettingsView(deps, (await admin(request)).orgId), {
      response: { 200: View },
      detail: { summary: "The org's own speech servers (keys never shown) and whether the operator has any", tags },
    })
    .put(
      "/api/speech",
      async ({ body, request }) => {
        const { orgId, actor } = await admin(request);
        return setSpeechSettings(deps, orgId, actor, body);
      },
      { body: Body, response: { 200: View }, detail: { summary: "Set the org's speech-to-text and text-to-speech servers (null: the operator's)", tags } },
    )
    .delete(
      "/api/speech",
      async ({ request }) => {
        const { orgId, actor } = await admin(request);
        return setSpeechSettings(deps, orgId, actor, { stt: null, tts: null });
      },
      { response: { 200: View }, detail: { summary: "Forget the org's speech servers: the operator's answer again", tags } },
    );
}
