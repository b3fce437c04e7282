// parse-prometheus-text-format ships no types: it takes the text exposition and answers its metric families.
declare module "parse-prometheus-text-format" {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
