//! Every vector kernel against its portable twin, on every set this CPU runs, and the
//! portable UTF-8 block test against `std`'s validation.

use super::*;
use quickcheck::{Arbitrary, Gen, QuickCheck};

/// Bytes that make the kernels' cases: ASCII (the probed bytes among it), characters of two,
/// three and four bytes, and bytes and pairs that break UTF-8.
#[derive(Clone, Debug)]
struct Text(Vec<u8>);

impl Arbitrary for Text {
    fn arbitrary(g: &mut Gen) -> Text {
        const PIECES: &[&[u8]] = &[
            b"a",
            b"b",
            b"[",
            b"]",
            b"<",
            b">",
            b"\0",
            "é".as_bytes(),
            "字".as_bytes(),
            "「".as_bytes(),
            "😀".as_bytes(),
            b"\x80",
            b"\xff",
            b"\xc0\x80",
            b"\xe0\x80",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xe3",
            b"\xf0\x9f",
        ];
        let len = 260 + usize::arbitrary(g) % 100;
        if u8::arbitrary(g) % 4 == 0 {
            // One ASCII byte over and over with a few others: a probe of it hits everywhere.
            let mut bytes = vec![u8::arbitrary(g) % 0x80; len];
            for _ in 0..usize::arbitrary(g) % 12 {
                bytes[usize::arbitrary(g) % len] = u8::arbitrary(g);
            }
            return Text(bytes);
        }
        let mut bytes = Vec::with_capacity(len + 4);
        while bytes.len() < len {
            // Mostly ASCII, some other characters, a few breaks of UTF-8: long valid and
            // quiet runs for the vector tests.
            let pieces = match u8::arbitrary(g) % 16 {
                0 => PIECES,
                1..4 => &PIECES[..11],
                _ => &PIECES[..6],
            };
            let piece = *g.choose(pieces).unwrap_or(&&b"a"[..]);
            bytes.extend_from_slice(piece);
        }
        Text(bytes)
    }
}

/// A probe: two offsets (below 32) and bytes of the text, or others.
fn probe(g: &mut Gen, text: &[u8]) -> [(usize, u8); 2] {
    let mut one = || {
        let at = usize::arbitrary(g) % 32;
        let byte = if bool::arbitrary(g) {
            text[usize::arbitrary(g) % 64]
        } else {
            *g.choose(b"ab[]<>\xa8").unwrap_or(&b'a')
        };
        (at, byte)
    };
    [one(), one()]
}

/// Compares the kernels it runs with against [`Portable`] on one text, at every start.
struct Compare<'a> {
    text: &'a [u8],
    probe: [(usize, u8); 2],
}

impl Job for Compare<'_> {
    type State = ();
    type Sink = ();
    type Out = Result<(), String>;
    fn run<K: Kernels>(self, _: &mut (), _: &[u8], _: &mut (), kernels: K) -> Self::Out {
        let (ascii, utf8) = (kernels.ascii(), kernels.utf8());
        let Compare { text, probe } = self;
        let [(i1, _), (i2, _)] = probe;
        // The ASCII kernels seek ASCII bytes.
        let ascii_probe = probe.map(|(at, b)| (at, b & 0x7F));
        let [(_, a1), (_, a2)] = ascii_probe;
        let p = Portable;
        for s in 0..=text.len() - 98 - 128 {
            let w = &text[s..];
            let at = |k: usize| -> &[u8; 64] { w[k..][..64].try_into().unwrap_or(&[0; 64]) };
            let two = |k: usize| -> &[u8; 128] { w[k..][..128].try_into().unwrap_or(&[0; 128]) };
            let window: &[u8; 98] = w[..98].try_into().unwrap_or(&[0; 98]);
            let pairs = [at(i1), at(i2)];
            let check = |what: &str, same: bool| match same {
                true => Ok(()),
                false => Err(format!("{what} differs at {s}")),
            };
            check("stops64", ascii.stops64(at(0), a1) == p.stops64(at(0), a1))?;
            check(
                "stops64_pair",
                ascii.stops64_pair(at(0), pairs, [a1, a2])
                    == p.stops64_pair(at(0), pairs, [a1, a2]),
            )?;
            check(
                "quiet128",
                ascii.quiet128(two(0), a1) == p.quiet128(two(0), a1),
            )?;
            // Exact over ASCII; elsewhere a false alarm may answer `false`, never `true`.
            let twos = [two(i1), two(i2)];
            let ascii_reach = twos.iter().all(|t| t.is_ascii());
            let (ours, theirs) = (
                ascii.quiet128_pair(two(0), twos, [a1, a2]),
                p.quiet128_pair(two(0), twos, [a1, a2]),
            );
            check("quiet128_pair", ours == theirs || (!ascii_reach && !ours))?;
            let units = |u: &dyn Fn(u32) -> u64| (0..=64).map(u).collect::<Vec<_>>();
            let theirs = p.utf8_block(&(), window, probe);
            let ours = utf8.utf8_block(&utf8.consts(), window, probe);
            check(
                "utf8_block",
                match (ours, theirs) {
                    (Some((u, c)), Some((v, d))) => {
                        let z = <<K::Utf8 as Utf8Kernels>::Units as BlockUnits>::zero;
                        c == d
                            && units(&|k| u.total_below(k, z())) == units(&|k| v.total_below(k, 0))
                            && <<K::Utf8 as Utf8Kernels>::Units as BlockUnits>::total(u.add(z()))
                                == v.add(0)
                    }
                    (None, None) => true,
                    _ => false,
                },
            )?;
            check(
                "candidates",
                utf8.candidates(window, probe) == p.candidates(window, probe),
            )?;
            let bytes: &[u8; 32] = w[64..][..32].try_into().unwrap_or(&[0; 32]);
            for len in [1, 2, 3, 7, 31, 32] {
                let here: &[u8; 32] = w[64 - (s % 3)..][..32].try_into().unwrap_or(&[0; 32]);
                check(
                    "starts",
                    utf8.starts(&utf8.prefix(bytes, len), here)
                        == p.starts(&p.prefix(bytes, len), here)
                        && utf8.starts(&utf8.prefix(bytes, len), bytes),
                )?;
            }
        }
        Ok(())
    }
}

#[test]
fn every_vector_kernel_equals_its_portable_twin() {
    let sets = Isa::available();
    assert_eq!(sets[0].name(), "portable");
    #[cfg(target_arch = "x86_64")]
    assert!(sets.iter().any(|s| s.name() == "sse2"));
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    assert!(sets.iter().any(|s| s.name() == "simd128"));
    #[cfg(target_arch = "aarch64")]
    assert!(sets.iter().any(|s| s.name() == "neon"));
    fn prop(text: Text, seed: u64) -> bool {
        let mut g = Gen::new(seed as usize % 1000 + 1);
        let probe = probe(&mut g, &text.0);
        Isa::available().into_iter().all(|isa| {
            let compare = Compare {
                text: &text.0,
                probe,
            };
            let out = isa.run(compare, &mut (), &[], &mut ());
            out.map_err(|e| eprintln!("{}: {e}", isa.name())).is_ok()
        })
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(Text, u64) -> bool);
}

/// The portable block test judges a block after three zero bytes as `std` judges it, when
/// the block ends in ASCII. (A lead byte at the block's end is judged with the byte after
/// it, in the next block.)
#[test]
fn portable_utf8_block_agrees_with_std() {
    fn prop(text: Text, at: usize) -> bool {
        let start = at % (text.0.len() - 95);
        let mut window = [0u8; 98];
        window[3..].copy_from_slice(&text.0[start..start + 95]);
        window[64..67].copy_from_slice(b"end");
        let std_valid = std::str::from_utf8(&window[3..67]).is_ok();
        Portable
            .utf8_block(&(), &window, [(0, b'a'), (0, b'a')])
            .is_some()
            == std_valid
    }
    QuickCheck::new()
        .tests(3000)
        .quickcheck(prop as fn(Text, usize) -> bool);
}

/// `ascii_run_without` returns the longest prefix of whole 64-byte blocks that is ASCII and
/// free of the byte: every byte before it is, and the next whole block is not.
#[test]
fn ascii_run_without_is_the_longest_clean_prefix_of_blocks() {
    fn prop(filler: u8, len: u16, dirt: Vec<(u16, u8)>, byte: u8) -> bool {
        let mut bytes = vec![filler % 0x80; usize::from(len) % 1000];
        for (at, b) in dirt.into_iter().take(3) {
            if !bytes.is_empty() {
                let at = usize::from(at) % bytes.len();
                bytes[at] = b;
            }
        }
        let r = ascii_run_without(&bytes, byte);
        let clean = |s: &[u8]| s.iter().all(|&b| b < 0x80 && b != byte);
        r.is_multiple_of(64)
            && clean(&bytes[..r])
            && (r + 64 > bytes.len() || !clean(&bytes[r..r + 64]))
    }
    QuickCheck::new()
        .tests(5000)
        .quickcheck(prop as fn(u8, u16, Vec<(u16, u8)>, u8) -> bool);
}
