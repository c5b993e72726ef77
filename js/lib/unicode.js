// UTF-8 facts the tag scanner needs on the JavaScript side: a string's UTF-8 length without
// encoding it, whether it holds a lone surrogate, and where bytes stop being whole UTF-8.

/**
 * Whether `text` holds no lone surrogate (false where the engine cannot say cheaply).
 * @param {string} text
 */
export const wellFormed = typeof "".isWellFormed === "function" ? (/** @type {string} */ text) => text.isWellFormed() : () => false;

/**
 * The UTF-8 length of a well-formed string.
 * @param {string} text
 */
export function bytesOf(text) {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    // Below 0x800 two bytes; a surrogate pair's two units four; the rest three.
    if (u >= 0x80) n += u < 0x800 || (u >= 0xd800 && u <= 0xdfff) ? 1 : 2;
  }
  return n;
}

/**
 * Where a character cut by the end of `bytes` begins (its length when none is).
 * @param {Uint8Array} bytes
 */
export function cutAt(bytes) {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back];
    if ((b & 0xc0) === 0x80) continue;
    const n = b < 0x80 ? 1 : b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xc2 && b <= 0xdf ? 2 : 1;
    return n > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/**
 * How many of `bytes` are whole, valid UTF-8 characters from the start.
 * @param {Uint8Array} bytes
 */
export function validUpTo(bytes) {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    let n;
    let lo = 0x80;
    let hi = 0xbf;
    if (b < 0x80) n = 1;
    else if (b >= 0xc2 && b <= 0xdf) n = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      n = 3;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 4;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    if (i + n > bytes.length) return i;
    for (let k = 1; k < n; k++) {
      const c = bytes[i + k];
      if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n;
  }
  return i;
}
