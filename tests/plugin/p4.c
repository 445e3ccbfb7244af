/* p4.c — plugin test: functions that must not be instrumented. */
__attribute__((naked)) void nk(void) { __asm__("ret"); }
__attribute__((no_instrument_function)) int quiet(int x) { return x; }
int main(void) { nk(); return quiet(0); }
