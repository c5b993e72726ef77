//! x86-64: the tokens that prove an instruction set was detected, the contract implemented
//! for each by calling into its file, and the entry functions compiled for each set.
//!
//! The soundness argument is one sentence: a token is made only in [`run`], for a `Set` that
//! only [`available`] makes, after detecting every instruction its kernels use; a kernel is
//! called only through a token's methods.

mod avx2;
mod avx512;
mod sse2;

use super::{Job, Portable, Set};
use core::arch::x86_64::{__m128i, __m256i, __m512i};

/// The sets this CPU runs, narrowest first.
pub(super) fn available() -> Vec<Set> {
    let mut sets = vec![Set::Portable, Set::Sse2];
    // POPCNT counts UTF-16 units in the UTF-8 walk; every AVX2 CPU has it.
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt") {
        sets.push(Set::Avx2);
        if is_x86_feature_detected!("avx512bw") {
            sets.push(Set::Avx512);
            if is_x86_feature_detected!("avx512vbmi") {
                sets.push(Set::Avx512Vbmi);
            }
        }
    }
    sets
}

/// Runs `job` with the kernels of `set`, from a function compiled with its instructions.
#[inline(always)]
pub(super) fn run<J: Job>(
    set: Set,
    job: J,
    state: &mut J::State,
    data: &[u8],
    sink: &mut J::Sink,
) -> J::Out {
    match set {
        Set::Portable => super::with_portable(job, state, data, sink),
        // SAFETY: every x86-64 CPU has SSE2.
        Set::Sse2 => unsafe { with_sse2(job, state, data, sink) },
        // SAFETY: `available` made `set` after detecting AVX2 and POPCNT.
        Set::Avx2 => unsafe { with_avx2(job, state, data, sink) },
        // SAFETY: `available` made `set` after detecting AVX-512 BW, AVX2 and POPCNT.
        Set::Avx512 => unsafe { with_avx512(job, state, data, sink) },
        // SAFETY: `available` made `set` after detecting AVX-512 BW and VBMI, AVX2, POPCNT.
        Set::Avx512Vbmi => unsafe { with_avx512_vbmi(job, state, data, sink) },
    }
}

/// Defines the entry function of a set: `$features` enabled, the job run with `$kernels`.
/// One per set: each walk is compiled into it with the set's instructions, and stays small
/// enough for the compiler to inline every kernel call into it.
macro_rules! entry {
    ($name:ident, $features:literal, $kernels:expr) => {
        #[target_feature(enable = $features)]
        fn $name<J: Job>(job: J, state: &mut J::State, data: &[u8], sink: &mut J::Sink) -> J::Out {
            job.run(state, data, sink, $kernels)
        }
    };
}

entry!(with_sse2, "sse2", (Sse2(()), Portable));
entry!(with_avx2, "avx2,popcnt", (Avx2(()), Avx2(())));
entry!(with_avx512, "avx512bw,avx2,popcnt", (Avx512(()), Avx2(())));
entry!(
    with_avx512_vbmi,
    "avx512bw,avx512vbmi,avx2,popcnt",
    (Avx512(()), Avx512Vbmi(()))
);

/// SSE2: part of every x86-64 CPU.
#[derive(Clone, Copy)]
struct Sse2(());

/// AVX2 and POPCNT, detected.
#[derive(Clone, Copy)]
struct Avx2(());

/// AVX-512 BW and AVX2, detected.
#[derive(Clone, Copy)]
struct Avx512(());

/// AVX-512 BW and VBMI, AVX2 and POPCNT, detected.
#[derive(Clone, Copy)]
struct Avx512Vbmi(());

ascii_kernels!(Sse2, __m128i);
ascii_kernels!(Avx2, __m256i);
ascii_kernels!(Avx512, __m512i, quiet from avx512);

utf8_kernels!(Avx2, __m256i, __m256i);

// AVX-512's own UTF-8 block test (VBMI's 64-entry tables, its units summed in a vector);
// a marker compared in 32 bytes as with AVX2, which every AVX-512 CPU has.
utf8_kernels!(Avx512Vbmi, __m512i, __m256i, block from avx512);

/// Whether the CPU is AMD's (asked once: CPUID is slow, in a virtual machine a trip to the
/// hypervisor).
pub(super) fn is_amd() -> bool {
    static AMD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AMD.get_or_init(|| {
        // Leaf 0 names the vendor in EBX, EDX, ECX: "AuthenticAMD".
        let id = core::arch::x86_64::__cpuid(0);
        (id.ebx, id.edx, id.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163)
    })
}

/// PREFETCHT0 of the line holding `data[at]`.
#[inline(always)]
pub(super) fn prefetch(data: &[u8], at: usize) {
    // `wrapping_add`: the pointer may leave the slice; it is never dereferenced.
    let line = data.as_ptr().wrapping_add(at).cast::<i8>();
    // SAFETY: PREFETCHT0 (SSE, part of x86-64) is a hint: it changes no architectural state,
    // reads nothing the program sees and never faults, whatever the address.
    unsafe { core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(line) }
}
