// The error classes of the lookup validation (Keiser and Lemire, "Validating UTF-8 in
// less than one instruction per byte", 2021): a byte pair (previous, current) is bad when
// one bit survives in all three tables, indexed by the previous byte's high and low
// nibbles and the current byte's high nibble.
/// A lead byte followed by something other than a continuation byte.
const TOO_SHORT: u8 = 1 << 0;
/// A continuation byte after ASCII.
const TOO_LONG: u8 = 1 << 1;
/// `E0` followed by `80..=9F`.
const OVERLONG_3: u8 = 1 << 2;
/// `F4` followed by `90..=BF`, or `F5..=FF` followed by `90..=BF`.
const TOO_LARGE: u8 = 1 << 3;
/// `ED` followed by `A0..=BF`: a UTF-16 surrogate.
const SURROGATE: u8 = 1 << 4;
/// `C0` or `C1` followed by a continuation byte.
const OVERLONG_2: u8 = 1 << 5;
/// `F0` followed by `80..=8F`, or `F5..=FF` followed by `80..=8F`.
const OVERLONG_4: u8 = 1 << 6;
/// A continuation byte after a continuation byte: an error unless a three- or four-byte
/// lead two or three bytes back asks for it (the `must` vector cancels it then).
const TWO_CONTS: u8 = 1 << 7;

pub(super) const BY_PREV_HIGH: [u8; 16] = {
    let mut t = [TOO_LONG; 16];
    let mut k = 8;
    while k < 12 {
        t[k] = TWO_CONTS;
        k += 1;
    }
    t[0xC] = TOO_SHORT | OVERLONG_2;
    t[0xD] = TOO_SHORT;
    t[0xE] = TOO_SHORT | OVERLONG_3 | SURROGATE;
    t[0xF] = TOO_SHORT | TOO_LARGE | OVERLONG_4;
    t
};

pub(super) const BY_PREV_LOW: [u8; 16] = {
    let mut t = [TOO_SHORT | TOO_LONG | TWO_CONTS; 16];
    t[0x0] |= OVERLONG_3 | OVERLONG_2 | OVERLONG_4;
    t[0x1] |= OVERLONG_2;
    let mut k = 4;
    while k < 16 {
        // F4 and above are too large (with 90..=BF); F5 and above with anything.
        t[k] |= TOO_LARGE;
        if k >= 5 {
            t[k] |= OVERLONG_4;
        }
        k += 1;
    }
    t[0xD] |= SURROGATE;
    t
};

pub(super) const BY_CURRENT_HIGH: [u8; 16] = {
    let mut t = [TOO_SHORT; 16];
    t[0x8] = TOO_LONG | TWO_CONTS | OVERLONG_2 | OVERLONG_3 | OVERLONG_4;
    t[0x9] = TOO_LONG | TWO_CONTS | OVERLONG_2 | OVERLONG_3 | TOO_LARGE;
    t[0xA] = TOO_LONG | TWO_CONTS | OVERLONG_2 | TOO_LARGE | SURROGATE;
    t[0xB] = t[0xA];
    t
};
