// Where a document is on the public help centre, for the dashboard's link from each article: null
// when the help centre is off or the document is not public (a draft, tagged internal, or without
// a public tag: src/knowledge/public-docs.ts).
import type { Deps } from "../deps.ts";
import { INTERNAL_TAG } from "../knowledge/public-docs.ts";
import { helpCentreOfOrg } from "./settings.ts";
import { paths, siteOf } from "./urls.ts";

export async function publicArticleUrl(
  deps: Pick<Deps, "db" | "config">,
  orgId: string,
  doc: { id: string; title: string; tags: string[]; status: string },
): Promise<string | null> {
  const row = await helpCentreOfOrg(deps, orgId);
  if (!row?.enabled || doc.status !== "published" || doc.tags.includes(INTERNAL_TAG) || !doc.tags.some((t) => row.collections.includes(t))) return null;
  const site = siteOf(row, "", deps.config.baseUrl, false);
  return paths.article({ ...site, prefix: site.canonical }, doc);
}
