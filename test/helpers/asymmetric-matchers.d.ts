/// <reference types="jest" />
// @types/jest types the asymmetric matchers (expect.any, expect.stringContaining...) as `any`, so every one
// inside an expected object trips the type-checked lint rules (no-unsafe-assignment). These overloads, merged
// ahead of @types/jest's own, give them the type jest's own `expect` package gives them.
declare namespace jest {
  interface Expect {
    anything(): AsymmetricMatcher;
    any(classType: unknown): AsymmetricMatcher;
    arrayContaining(array: readonly unknown[]): AsymmetricMatcher;
    objectContaining(object: object): AsymmetricMatcher;
    stringContaining(text: string): AsymmetricMatcher;
    stringMatching(pattern: string | RegExp): AsymmetricMatcher;
  }
}
