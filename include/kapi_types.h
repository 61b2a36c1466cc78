/* SPDX-License-Identifier: GPL-2.0 */
/* kapi_types.h - the plain C types every boundary header uses (compiler types only). */
#ifndef KAPI_TYPES_H
#define KAPI_TYPES_H

#ifdef __cplusplus
#define KAPI_NOEXCEPT noexcept
#else
#define KAPI_NOEXCEPT
#endif

typedef __SIZE_TYPE__ kapi_size_t;
typedef __UINT8_TYPE__ kapi_u8;
typedef __UINT16_TYPE__ kapi_u16;
typedef __UINT32_TYPE__ kapi_u32;
typedef __UINT64_TYPE__ kapi_u64;

#define KAPI_PRINTF(f, a) __attribute__((format(printf, f, a)))

#endif /* KAPI_TYPES_H */
