ALTER TABLE "conversations" ADD COLUMN "quiet_answer_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "quiet_ended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "open_answer_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "last_turn_greeting" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "helpful" boolean;--> statement-breakpoint
-- Existing conversations: the report facts from their stored messages (src/conversations/report-facts.ts BACKFILL_SQL).
with msgs as (
  select m.conversation_id, m.role, m.created_at, m.id, m.text, m.helpful, m.helpful_at,
    (m.role = 'agent' and m.status = 'complete' and m.routing is null and m.text <> ''
      and not coalesce(lag(m.role) over w = 'customer' and lag(m.text) over w ~* '^[[:space:]]*(hi|hello|hey|hiya|yo|good (morning|afternoon|evening)|thanks?( you)?( so much| a lot)?|thx|ty|cheers|ok|okay|great|cool|bye|goodbye)[[:space:][:punct:]]*$', false)) as substantive,
    min(case when m.role = 'customer' and m.text !~* '^[[:space:]]*(hi|hello|hey|hiya|yo|good (morning|afternoon|evening)|thanks?( you)?( so much| a lot)?|thx|ty|cheers|ok|okay|great|cool|bye|goodbye)[[:space:][:punct:]]*$' then m.created_at end)
      over (w rows between 1 following and unbounded following) as next_customer
  from conversation_messages m
  where m.role in ('customer', 'agent')
  window w as (partition by m.conversation_id order by m.created_at, m.id)
), facts as (
  select conversation_id,
    (array_agg(created_at order by created_at, id) filter (where substantive and next_customer > created_at + interval '24 hours'))[1] as quiet_answer_at,
    (array_agg(next_customer order by created_at, id) filter (where substantive and next_customer > created_at + interval '24 hours'))[1] as quiet_ended_at,
    min(created_at) filter (where substantive and next_customer is null) as open_answer_at,
    (array_agg(role = 'customer' and text ~* '^[[:space:]]*(hi|hello|hey|hiya|yo|good (morning|afternoon|evening)|thanks?( you)?( so much| a lot)?|thx|ty|cheers|ok|okay|great|cool|bye|goodbye)[[:space:][:punct:]]*$' order by created_at desc, id desc))[1] as last_turn_greeting,
    (array_agg(helpful order by helpful_at desc nulls last, created_at desc) filter (where helpful is not null))[1] as helpful
  from msgs group by conversation_id
)
update conversations c set quiet_answer_at = f.quiet_answer_at, quiet_ended_at = f.quiet_ended_at, open_answer_at = f.open_answer_at,
  last_turn_greeting = f.last_turn_greeting, helpful = f.helpful
from facts f where f.conversation_id = c.id
