// The per-process caches `Deps` carries, as the features that read them see them. Each is built
// by its owner (named on each) and handed to `Deps` by the composition root (src/compose.ts).
import type { FreshCache } from "../kit/fresh-cache.ts";
import type { OrgCaches } from "../kit/org-cache.ts";

/** A verified tool-server access token (src/oauth/verify.ts). */
export interface AccessContext {
  tokenId: string;
  grantId: string;
  clientId: string;
  memberId: string;
  orgId: string;
  scopes: string[];
  expiresAt: Date;
}

/** Verified access tokens, cached briefly (src/oauth/token-cache.ts). */
export interface AccessVerifier {
  verify(token: string): Promise<AccessContext | null>;
  /** After any revocation (token, grant, membership, client): forget every verified token, here and in every instance. */
  invalidate(): void;
}

/** A live widget key with its org's allowed origins (src/sdk/auth.ts). */
export interface LiveWidgetKey {
  id: string;
  orgId: string;
  allowedOrigins: string[] | null;
}

/** Live widget keys by hash, unknown ones as null (src/sdk/auth.ts). */
export type WidgetKeyCache = FreshCache<LiveWidgetKey | null>;

/** An org's overrides of the catalogue's sentences, by language then key (src/texts/store.ts). */
export type OrgTextsCache = FreshCache<Record<string, Partial<Record<string, string>>>>;

/** A word of a passage: where it is and its stem. */
export interface Word {
  start: number;
  end: number;
  stem: string;
}

/** One passage of a document (src/knowledge/passages.ts). */
export interface DocPassage {
  text: string;
  /** Stems of the document's title and of this passage (term coverage counts both). */
  stems: ReadonlySet<string>;
  words: readonly Word[];
  /** Where each stem of the passage's own text occurs: word indices, ascending. */
  at: ReadonlyMap<string, readonly number[]>;
}

/** Documents cut into passages per version (src/knowledge/passages.ts). */
export interface PassageCache {
  /** The passages of a document version, cut on first use. */
  get(key: string, title: string, body: () => string): DocPassage[];
  has(key: string): boolean;
}

/**
 * What a question needs of the org's knowledge state, in one lookup by key: its documents' version
 * and its synonyms as stored (JSON text) (src/knowledge/synonyms.ts `knowledgeState`).
 */
export interface KnowledgeState {
  docsVersion: number;
  synonyms: string;
}

/** Each org's knowledge state, cached per process and dropped by a change (src/knowledge/state-cache.ts). */
export interface KnowledgeStates {
  /** The org's state: cached, or read by `load` (and kept unless a change is recent). */
  get(orgId: string, load: () => Promise<KnowledgeState>): Promise<KnowledgeState>;
  /** A change to the org's documents or synonyms is under way or done: dropped, and read uncached for a while. */
  changing(orgId: string): void;
}

/** The knowledge feature's per-process state (src/knowledge/org-index.ts, src/knowledge/embed-search.ts). */
export interface KnowledgeIndexes {
  /** Each org's documents' version and synonyms (src/knowledge/state-cache.ts). */
  readonly states: KnowledgeStates;
  /** Per-org lexical indexes and passage vectors, each kind under its own budget, checked against the org's versions on every question. */
  readonly orgs: OrgCaches;
  /** When asking for a question's vector may resume after a failure (ms since the epoch). */
  readonly vectors: { pausedUntil: number };
}

/** A client described by its metadata document (src/oauth/client-metadata.ts). */
export interface MetadataClient {
  name: string;
  /** The URL's host: what the consent page names, since `client_name` proves nothing. */
  host: string;
  redirectUris: string[];
}

/** Per-process state of the chat (src/agents/turn.ts). */
export interface ChatState {
  /** Reply writes still pending after a stream, per conversation. */
  pendingReplies: Map<string, Promise<void>>;
}
