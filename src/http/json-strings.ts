// What a string in JSON we accept or store may hold: no C0 control character other than tab, LF
// and CR (PostgreSQL refuses NUL in text and jsonb; the others have no business in names, e-mails,
// URIs or free text) and no unpaired UTF-16 surrogate (jsonb refuses them, and UTF-8 cannot encode
// them). One module because two rules share it: the bounded reader of request bodies
// (src/http/json.ts) and the free-form values checked before they are stored
// (src/http/free-form.ts); form bodies, OAuth parameters and the tool server's identity fields
// use findControlCharacter too.

/** True for the C0 control characters we refuse: U+0000–U+001F except tab, LF, CR. */
export function isRefusedControl(code: number): boolean {
  return code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d;
}

const REFUSED_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f]/;

/** The first refused control character in `text` as a description ("U+0000"), or null. Linear. */
export function findControlCharacter(text: string): string | null {
  const found = REFUSED_CONTROL.exec(text);
  return found ? `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}` : null;
}

/** True when `text` holds an unpaired UTF-16 surrogate. Linear. */
export function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return true;
    } else if (code >= 0xdc00 && code <= 0xdfff) return true;
  }
  return false;
}

export const CONTROL_MESSAGE = "Strings may not contain control characters other than tab, line feed and carriage return";
