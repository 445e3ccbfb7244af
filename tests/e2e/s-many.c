/* s-many.c — many procedures and sites: 2048 functions f_<n> called through
 * one function-pointer site in driver(1), which then calls driver(0)
 * recursively: the ps count passes the initial per-thread array size while
 * main and driver are active, and tables grow. */
#define F(n) int f_##n(int x) { return x + 1; }
#define F2(n) F(n##0) F(n##1)
#define F4(n) F2(n##0) F2(n##1)
#define F8(n) F4(n##0) F4(n##1)
#define F16(n) F8(n##0) F8(n##1)
#define F32(n) F16(n##0) F16(n##1)
#define F64(n) F32(n##0) F32(n##1)
#define F128(n) F64(n##0) F64(n##1)
#define F256(n) F128(n##0) F128(n##1)
#define F512(n) F256(n##0) F256(n##1)
#define F1024(n) F512(n##0) F512(n##1)
#define F2048(n) F1024(n##0) F1024(n##1)
F2048(1)
#define P(n) f_##n,
#define P2(n) P(n##0) P(n##1)
#define P4(n) P2(n##0) P2(n##1)
#define P8(n) P4(n##0) P4(n##1)
#define P16(n) P8(n##0) P8(n##1)
#define P32(n) P16(n##0) P16(n##1)
#define P64(n) P32(n##0) P32(n##1)
#define P128(n) P64(n##0) P64(n##1)
#define P256(n) P128(n##0) P128(n##1)
#define P512(n) P256(n##0) P256(n##1)
#define P1024(n) P512(n##0) P512(n##1)
#define P2048(n) P1024(n##0) P1024(n##1)
static int (*const fns[2048])(int) = { P2048(1) };
int driver(int again)
{
	int s = 0;
	for (int i = 0; i < 2048; i++)
		s += fns[i](i) - i;
	if (again)
		s += driver(0);
	return s;
}
int main(void) { return driver(1) == 4096 ? 0 : 1; }
