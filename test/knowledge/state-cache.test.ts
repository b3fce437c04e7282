// Each org's knowledge state cached per process (src/knowledge/state-cache.ts): read once, then
// from memory; a change drops it at once here and makes the next reads go to the database for a
// while; on another instance, the change arrives at its commit (a NOTIFY sent in the changing
// transaction) and never for a transaction rolled back.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { knowledgeSources } from "../../src/db/schema/index.ts";
import { createInvalidation } from "../../src/invalidation.ts";
import { createDoc, deleteDoc } from "../../src/knowledge/docs.ts";
import { CHANGE_QUIET_MS, createKnowledgeStates, knowledgeChanged, STATE_TTL_MS } from "../../src/knowledge/state-cache.ts";
import { currentKnowledgeState, knowledgeState, putSynonyms } from "../../src/knowledge/synonyms.ts";
import { removeSourceDoc, writeSourceDoc } from "../../src/knowledge/source-docs.ts";
import type { KnowledgeState } from "../../src/ports/caches.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { rejectionOf } from "../support/settle.ts";
import { type ChatOrg, seedChatOrg } from "../support/chat.ts";

const STATE: KnowledgeState = { docsVersion: 1, synonyms: "[]" };

describe("the cache", () => {
  function counting(value: KnowledgeState = STATE) {
    let loads = 0;
    return {
      load: async () => {
        loads++;
        return value;
      },
      loads: () => loads,
    };
  }

  test("read once, then from memory until its time is up", async () => {
    let now = 0;
    const states = createKnowledgeStates(() => now);
    const source = counting();
    expect(await states.get("org", source.load)).toEqual(STATE);
    expect(await states.get("org", source.load)).toEqual(STATE);
    expect(source.loads()).toBe(1);
    now += STATE_TTL_MS;
    await states.get("org", source.load);
    expect(source.loads()).toBe(2);
  });

  test("a change drops the org at once, reads go to the database for CHANGE_QUIET_MS, then are kept again", async () => {
    let now = 0;
    const states = createKnowledgeStates(() => now);
    const source = counting();
    await states.get("org", source.load);
    await states.get("other", source.load);
    states.changing("org");
    await states.get("org", source.load);
    await states.get("org", source.load);
    expect(source.loads()).toBe(4); // each read during the quiet period went to the database
    await states.get("other", source.load);
    expect(source.loads()).toBe(4); // another org is untouched
    now += CHANGE_QUIET_MS;
    await states.get("org", source.load);
    await states.get("org", source.load);
    expect(source.loads()).toBe(5);
  });

  test("a load that fails is not kept", async () => {
    const states = createKnowledgeStates(() => 0);
    expect(String(await rejectionOf(states.get("org", () => Promise.reject(new Error("down")))))).toContain("down");
    expect(await states.get("org", async () => STATE)).toEqual(STATE);
  });
});

describe("on the database", () => {
  let app: TestApp;
  let org: ChatOrg;
  beforeAll(async () => {
    app = await createTestApp();
    org = await seedChatOrg(app);
  }, 30_000);
  afterAll(() => app.close());

  const fresh = () => knowledgeState(app.deps, org.org_id);
  const cached = () => currentKnowledgeState(app.deps, org.org_id);

  test("every change of the documents or the synonyms is seen by the next question here", async () => {
    expect(await cached()).toEqual(await fresh());
    const doc = await createDoc(app.deps, org.org_id, { title: "Shipping times", body: "We ship within two days." });
    expect(await cached()).toEqual(await fresh());
    await putSynonyms(app.deps, org.org_id, [["ship", "deliver"]]);
    expect((await cached()).synonyms).toContain("deliver");
    await deleteDoc(app.deps, org.org_id, doc.id);
    expect(await cached()).toEqual(await fresh());
  });

  test("a page a source no longer has is counted as a change, so no index keeps it", async () => {
    const [source] = await app.deps.db
      .insert(knowledgeSources)
      .values({ orgId: org.org_id, kind: "website", name: "Help" })
      .returning({ id: knowledgeSources.id });
    const written = (await writeSourceDoc(app.deps, org.org_id, source!.id, null, {
      title: "Old page",
      body: "Gone soon.",
      url: "https://help.example.com/old",
    })) as { doc: { id: string } };
    const before = (await fresh()).docsVersion;
    expect(await removeSourceDoc(app.deps, org.org_id, source!.id, written.doc.id)).toBe("removed");
    expect((await fresh()).docsVersion).toBeGreaterThan(before);
    expect(await cached()).toEqual(await fresh());
  });

  test("another instance learns of a change when it commits, and never of one rolled back", async () => {
    const other = createInvalidation({ db: app.deps.db, log: app.deps.log, listen: app.database.listen });
    const heard: string[] = [];
    other.subscribe("knowledge", (orgId) => heard.push(orgId));
    await other.start();
    const eventually = async (check: () => boolean) => {
      for (let i = 0; i < 100 && !check(); i++) await Bun.sleep(20);
      return check();
    };
    const states = app.deps.knowledge.states;
    const rolledBack = await rejectionOf(
      app.deps.db.transaction(async (tx) => {
        await knowledgeChanged(states, tx, org.org_id);
        throw new Error("rolled back");
      }),
    );
    expect(String(rolledBack)).toContain("rolled back");
    let committed = false;
    await app.deps.db.transaction(async (tx) => {
      await knowledgeChanged(states, tx, org.org_id);
      await Bun.sleep(100);
      expect(heard).toEqual([]); // not before the commit
      committed = true;
    });
    expect(committed).toBe(true);
    expect(await eventually(() => heard.length > 0)).toBe(true);
    expect(heard).toEqual([org.org_id]); // once: the rolled-back change was never announced
    await other.stop();
  });
});
