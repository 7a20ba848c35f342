// libFuzzer entry point; see Fuzz/README.md. No top-level code here: libFuzzer owns main.
