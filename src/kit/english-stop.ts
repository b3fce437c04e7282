// English function words for the English analyzer (src/kit/analyzer.ts).

/**
 * English function words, and the filler of customers' questions ("what is the best place to
 * learn more about…"): words that say how something is asked, not what it is about. A content
 * word here would count as half a question's subject and pull in any page that happens to use it.
 */
export const STOP = new Set(
  (
    "a about above after again all am an and any are as at be because been before being " +
    "below between both but by can cannot could did do does doing don down during each " +
    "few for from further get got had has have having he her here hers him his how i if in " +
    "into is it its itself just let me more most my myself no nor not now of off on once " +
    "only or other our ours out over own please same she should so some such than thank " +
    "thanks that the their theirs them then there these they this those through to too " +
    "under until up us very want was we were what when where which while who whom why " +
    "will with would you your yours yourself hi hello hey tell know need help way like one " +
    "ok okay yes yeah yep sure right alright fine good great cool nice hmm um uh oh well also just really actually maybe perhaps anyway " +
    "best better place deeper deep further look looking find finding learn learning " +
    "read reading info information question questions thing things something anything " +
    "someone somebody anyone everything lot lots much many kind sort bit go going " +
    "went come stuff may might must shall im ive id dont cant wont didnt isnt doesnt " +
    "wanted wondering wonder wonderful mean means say said see seen interested curious " +
    "detail details specific specifically exactly give gave provide site website page"
  ).split(" "),
);
