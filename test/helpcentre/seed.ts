// A help centre to test against: an org with public, draft, internal and private articles.
import { systemActor } from "../../src/kit/actor.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import { saveHelpCentre } from "../../src/helpcentre/settings.ts";
import { seedOrg, type TestApp } from "../support/app.ts";

export const ARTICLE_BODY = `Refunds reach your card within five working days.

## Which methods are refunded?

| Method | Days |
|:-------|-----:|
| Card | 5 |
| Bank transfer | 3 |

## How do I ask by API?

\`\`\`sh
curl -X POST https://api.example/refunds -d '{"order":"A-1"}'
\`\`\`

![The refund button](IMAGE_URL)
`;

export async function seedHelpCentre(app: TestApp, options: { slug?: string; imageUrl?: string } = {}) {
  const org = await seedOrg(app, { name: "Acme Outdoor" });
  const orgId = org.org_id;
  const body = ARTICLE_BODY.replace("IMAGE_URL", options.imageUrl ?? "https://images.example/refund.png");
  const refunds = await createDoc(app.deps, orgId, { title: "Getting a refund", body, tags: ["billing"] });
  const shipping = await createDoc(app.deps, orgId, {
    title: "Shipping times",
    body: "Parcels ship within two days of your order.",
    tags: ["shipping", "billing"],
  });
  const draft = await createDoc(app.deps, orgId, {
    title: "Refund policy draft",
    body: "Draft: refunds within ninety days.",
    tags: ["billing"],
    status: "draft",
  });
  const internal = await createDoc(app.deps, orgId, {
    title: "Refund fraud checklist",
    body: "Internal: refunds over 500 need approval.",
    tags: ["billing", "internal"],
  });
  const unlisted = await createDoc(app.deps, orgId, { title: "Refund desk rota", body: "Refunds desk rota for staff.", tags: ["staff"] });
  const slug = options.slug ?? `acme-${orgId.slice(0, 8)}`;
  await saveHelpCentre(app.deps, orgId, systemActor("test"), {
    enabled: true,
    slug,
    custom_domain: null,
    collections: ["billing", "shipping"],
    footer: "Acme Outdoor, 1 Trail Road",
  });
  return { org, orgId, slug, refunds, shipping, draft, internal, unlisted };
}
