/* Oniguruma's build configuration, written by tokenforge in place of its configure step (the
   sources in src/ are Oniguruma's, untouched; README.md says which). The same settings the Rust
   onig_sys crate writes for HF tokenizers on Unix targets (onig_sys/build.rs), with the type sizes
   taken from the compiler instead of assumed, so one file serves every gcc/clang target. */
#ifndef TOKENFORGE_ONIG_CONFIG_H
#define TOKENFORGE_ONIG_CONFIG_H

#define HAVE_PROTOTYPES 1
#define STDC_HEADERS 1
#define HAVE_STRING_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_LIMITS_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_STDINT_H 1
#define HAVE_SYS_TYPES_H 1

#if defined(__has_include)
#if __has_include(<alloca.h>)
#define HAVE_ALLOCA_H 1
#endif
#endif

#define SIZEOF_INT __SIZEOF_INT__
#define SIZEOF_SHORT __SIZEOF_SHORT__
#define SIZEOF_LONG __SIZEOF_LONG__
#define SIZEOF_LONG_LONG __SIZEOF_LONG_LONG__
#define SIZEOF_VOIDP __SIZEOF_POINTER__

#endif /* TOKENFORGE_ONIG_CONFIG_H */
