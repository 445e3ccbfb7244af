/* A function GCC splits (its head, the NULL test, inlined into each
 * caller; the rest in g.part.0) whose part makes calls: with
 * calls=surviving those sites have no slot of their own in the callers'
 * pds, and take dp_abi_call_noslot at each call: t046. */
#include <stdio.h>

int sink;

__attribute__((noinline)) void leaf(int x)
{
	sink += x;
}

__attribute__((noinline)) void leaf2(int x)
{
	sink ^= x;
}

int g(int *p, int n)
{
	if (!p)
		return 0;
	for (int i = 0; i < n; i++) {
		leaf(p[i]);
		leaf2(p[i]);
	}
	if (p[0] == 100) {
		printf("v0 %d\n", p[0]);
		leaf(0);
	}
	if (p[1] == 101) {
		printf("v1 %d\n", p[1]);
		leaf(1);
	}
	if (p[2] == 102) {
		printf("v2 %d\n", p[2]);
		leaf(2);
	}
	if (p[3] == 103) {
		printf("v3 %d\n", p[3]);
		leaf(3);
	}
	if (p[0] == 104) {
		printf("v4 %d\n", p[0]);
		leaf(4);
	}
	if (p[1] == 105) {
		printf("v5 %d\n", p[1]);
		leaf(5);
	}
	if (p[2] == 106) {
		printf("v6 %d\n", p[2]);
		leaf(6);
	}
	if (p[3] == 107) {
		printf("v7 %d\n", p[3]);
		leaf(7);
	}
	if (p[0] == 108) {
		printf("v8 %d\n", p[0]);
		leaf(8);
	}
	if (p[1] == 109) {
		printf("v9 %d\n", p[1]);
		leaf(9);
	}
	if (p[2] == 110) {
		printf("v10 %d\n", p[2]);
		leaf(10);
	}
	if (p[3] == 111) {
		printf("v11 %d\n", p[3]);
		leaf(11);
	}
	if (p[0] == 112) {
		printf("v12 %d\n", p[0]);
		leaf(12);
	}
	if (p[1] == 113) {
		printf("v13 %d\n", p[1]);
		leaf(13);
	}
	if (p[2] == 114) {
		printf("v14 %d\n", p[2]);
		leaf(14);
	}
	if (p[3] == 115) {
		printf("v15 %d\n", p[3]);
		leaf(15);
	}
	if (p[0] == 116) {
		printf("v16 %d\n", p[0]);
		leaf(16);
	}
	if (p[1] == 117) {
		printf("v17 %d\n", p[1]);
		leaf(17);
	}
	if (p[2] == 118) {
		printf("v18 %d\n", p[2]);
		leaf(18);
	}
	if (p[3] == 119) {
		printf("v19 %d\n", p[3]);
		leaf(19);
	}
	if (p[0] == 120) {
		printf("v20 %d\n", p[0]);
		leaf(20);
	}
	if (p[1] == 121) {
		printf("v21 %d\n", p[1]);
		leaf(21);
	}
	if (p[2] == 122) {
		printf("v22 %d\n", p[2]);
		leaf(22);
	}
	if (p[3] == 123) {
		printf("v23 %d\n", p[3]);
		leaf(23);
	}
	if (p[0] == 124) {
		printf("v24 %d\n", p[0]);
		leaf(24);
	}
	if (p[1] == 125) {
		printf("v25 %d\n", p[1]);
		leaf(25);
	}
	if (p[2] == 126) {
		printf("v26 %d\n", p[2]);
		leaf(26);
	}
	if (p[3] == 127) {
		printf("v27 %d\n", p[3]);
		leaf(27);
	}
	if (p[0] == 128) {
		printf("v28 %d\n", p[0]);
		leaf(28);
	}
	if (p[1] == 129) {
		printf("v29 %d\n", p[1]);
		leaf(29);
	}
	leaf(n);
	return sink;
}

__attribute__((noinline)) int h(int *a, int k)
{
	return g(k % 3 ? a : NULL, 4);
}

int main(void)
{
	int a[4] = { 1, 2, 3, 4 };
	int s = 0;
	for (int k = 0; k < 3000; k++)
		s += g(k % 3 ? a : NULL, 4) + h(a, k);
	printf("%d\n", s);
	return 0;
}
