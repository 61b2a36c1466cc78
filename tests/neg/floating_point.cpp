// SPDX-License-Identifier: GPL-2.0
// expect: floating_point\.cpp:.*SSE (register return with SSE disabled|disabled)
double half(double x);
double half(double x) { return x / 2; }
