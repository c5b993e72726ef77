//! The primitives the kernels' algorithms (`generic/`) are written over: a vector of bytes
//! as each instruction set has one. A set's file implements them with its intrinsics; the
//! algorithms, `#[inline(always)]` down to these methods, are compiled inside the set's entry
//! function, so they become the instructions a kernel written for the set would be.
//!
//! Every method is `unsafe` with one precondition: the CPU runs the instructions of the
//! set that implements it (a token of the set proves it, see `forward.rs`). An
//! implementation enables its set's features on each method (`#[target_feature]`), so its
//! intrinsics are called plainly there.

/// A vector of [`Vector::BYTES`] bytes.
pub(crate) trait Vector: Copy {
    /// The bytes a vector holds: 16, 32 or 64.
    const BYTES: usize;

    /// `byte` in every lane.
    unsafe fn splat(byte: u8) -> Self;

    /// The first [`Vector::BYTES`] bytes of `bytes`, in one unaligned load (zeros if
    /// `bytes` is shorter, which the kernels' fixed-size windows rule out).
    unsafe fn load(bytes: &[u8]) -> Self;

    /// All ones where the lanes are equal, zeros elsewhere.
    unsafe fn eq(self, other: Self) -> Self;
    unsafe fn and(self, other: Self) -> Self;
    unsafe fn or(self, other: Self) -> Self;
    unsafe fn xor(self, other: Self) -> Self;
    /// `self - other` in each lane, unsigned, stopping at zero.
    unsafe fn sub_sat(self, other: Self) -> Self;

    /// The high bit of each lane: bit `k` is lane `k`'s (`BYTES` bits).
    unsafe fn movemask(self) -> u64;

    /// The high bits of up to `64 / BYTES` vectors (the lanes of a 64-byte block, in
    /// order) as one mask: bit `BYTES * j + k` is lane `k` of `lanes[j]`. A set whose
    /// [`Vector::movemask`] is dear may pack several vectors at once instead.
    #[inline(always)]
    unsafe fn mask64(lanes: &[Self]) -> u64 {
        let mut mask = 0;
        for (j, &v) in lanes.iter().enumerate() {
            // SAFETY: this method's precondition is the one of the method called.
            mask |= unsafe { v.movemask() } << (Self::BYTES * j);
        }
        mask
    }

    /// Whether any lane has its high bit set.
    unsafe fn any_high(self) -> bool;
}

/// A set that looks bytes up in 16-entry tables (`pshufb` and its kin), which the UTF-8
/// validation needs (SSE2 has no such instruction).
pub(crate) trait Shuffle: Vector {
    /// The 16-byte table `t` in every 128-bit lane, ready for [`Shuffle::lookup`].
    unsafe fn table(t: &[u8; 16]) -> Self;

    /// `table[index]` in each lane, for indices below 16.
    unsafe fn lookup(table: Self, index: Self) -> Self;

    /// Each lane's high nibble (`nibble`: [`Vector::splat`] of `0x0F`, the mask the sets
    /// that shift wider lanes than bytes need).
    unsafe fn high_nibbles(self, nibble: Self) -> Self;

    /// Whether any bit of any lane is set.
    unsafe fn any(self) -> bool;
}

/// The methods of a set's [`Vector`] or [`Shuffle`] impl, each `#[inline]` with the set's
/// `$features` enabled, so that its intrinsics are called plainly.
macro_rules! with_features {
    ($features:literal; $($(#[$meta:meta])* unsafe fn $name:ident $args:tt -> $out:ty $body:block)*) => {
        $(
            $(#[$meta])*
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn $name $args -> $out $body
        )*
    };
}
