//! The process's memory allocator: mimalloc, asked for plain allocations.
//!
//! Parsing thousands of JSON documents on several threads is
//! allocation-bound, and mimalloc's per-thread heaps roughly halve the time
//! glibc's malloc takes. The `mimalloc` crate's allocator passes every
//! request through mimalloc's aligned entry points, whose extra checks cost
//! about 50 instructions an allocation; nearly every request the program
//! makes is for an alignment that plain `mi_malloc` already guarantees, so
//! those go there (the rule the standard library's own Unix allocator
//! uses), and only over-aligned ones take the aligned path.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// The alignment every `mi_malloc` block of at least this size has
/// (mimalloc's `MI_MAX_ALIGN_SIZE` on 64-bit targets); smaller blocks are
/// aligned to their size class, which is at least the layout's alignment
/// when that alignment is no larger than the size.
const PLAIN_ALIGN: usize = 16;

/// mimalloc behind Rust's allocator interface.
pub struct MiMalloc;

fn plain(align: usize, size: usize) -> bool {
    align <= PLAIN_ALIGN && align <= size
}

// SAFETY: every pointer handed out comes from mimalloc with at least the
// requested size and alignment (the plain path only when `plain` holds,
// see above), and is given back to mimalloc's `mi_free`/`mi_realloc*`.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: plain FFI calls; mimalloc accepts any size.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_malloc(layout.size()) as *mut u8
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()) as *mut u8
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (GlobalAlloc's contract).
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`
        // (GlobalAlloc's contract); the alignment kept is the layout's.
        unsafe {
            if plain(layout.align(), new_size) {
                mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every alignment up to a page, every size around the small classes:
    /// the block is usable, aligned as asked, survives growing and
    /// shrinking with its contents, and is zeroed when asked.
    #[test]
    fn blocks_are_aligned_sized_and_kept_through_realloc() {
        let a = MiMalloc;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [
                1usize, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 33, 100, 1000, 70_000,
            ] {
                let layout = Layout::from_size_align(size, align).unwrap();
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "alloc {size} aligned {align}");
                    for i in 0..size {
                        *p.add(i) = i as u8;
                    }
                    let grown = a.realloc(p, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "realloc {size} aligned {align}");
                    for i in 0..size {
                        assert_eq!(*grown.add(i), i as u8);
                    }
                    let grown_layout = Layout::from_size_align(size * 3, align).unwrap();
                    let shrunk = a.realloc(grown, grown_layout, size.div_ceil(2));
                    assert_eq!(shrunk as usize % align, 0);
                    for i in 0..size.div_ceil(2) {
                        assert_eq!(*shrunk.add(i), i as u8);
                    }
                    a.dealloc(
                        shrunk,
                        Layout::from_size_align(size.div_ceil(2), align).unwrap(),
                    );

                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
