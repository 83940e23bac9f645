package dev.periscope.api.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class UrlGlobTest {
  @Test
  void matchesWholeUrlsAsPlaywrightsGlobsDo() {
    UrlGlob checkout = UrlGlob.of("**/checkout/*", "/url");
    assertTrue(checkout.matches("https://shop.example/checkout/payment"));
    assertFalse(checkout.matches("https://shop.example/checkout/payment/card"), "* stops at /");
    assertFalse(checkout.matches("https://shop.example/cart"));
    assertTrue(UrlGlob.of("**/search?q=*", "/url").matches("http://a.test/search?q=lamp"));
    assertFalse(UrlGlob.of("**/search?q=*", "/url").matches("http://a.test/searchXq=lamp"));
    UrlGlob either = UrlGlob.of("**/{cart,basket}/**", "/url");
    assertTrue(either.matches("http://a.test/cart/1"));
    assertTrue(either.matches("http://a.test/basket/items/2"));
    assertFalse(either.matches("http://a.test/bag/1"));
    assertTrue(UrlGlob.of("http://a.test/", "/url").matches("http://a.test/"));
    assertFalse(UrlGlob.of("http://a.test/", "/url").matches("http://a.test/x"));
    assertTrue(UrlGlob.of("**", "/url").matches("about:blank"));
    // A bare origin is its root's URL, as Chromium reports it after loading it.
    assertTrue(UrlGlob.of("https://shop.example", "/url").matches("https://shop.example/"));
    assertTrue(UrlGlob.of("http://a.test:8080", "/url").matches("http://a.test:8080/"));
    assertFalse(UrlGlob.of("https://shop.example", "/url").matches("https://shop.example/x"));
    assertFalse(UrlGlob.of("https://shop.*", "/url").matches("https://shop.example/"));
    assertTrue(UrlGlob.of("http://a.test/**/x", "/url").matches("http://a.test/x"), "/**/ is /");
    assertTrue(UrlGlob.of("http://a.test/**/x", "/url").matches("http://a.test/b/c/x"));
    assertFalse(UrlGlob.of("http://a.test/**/x", "/url").matches("http://a.test/bx"));
    assertFalse(
        UrlGlob.of("**", "/url").matches("http://a.test/" + "a".repeat(20_000)), "too long");
    assertTrue(UrlGlob.of("http://a.test/a.b", "/url").matches("http://a.test/a.b"));
    assertFalse(
        UrlGlob.of("http://a.test/a.b", "/url").matches("http://a.test/aXb"), ". is itself");
    // A backslash makes the next character itself, as in Playwright's globs.
    UrlGlob star = UrlGlob.of("**/a\\*b", "/url");
    assertTrue(star.matches("http://a.test/a*b"));
    assertFalse(star.matches("http://a.test/aXb"), "an escaped star is a star, not any run");
    UrlGlob braces = UrlGlob.of("**/\\{a\\,b\\}", "/url");
    assertTrue(braces.matches("http://a.test/{a,b}"));
    assertFalse(braces.matches("http://a.test/a"));
    assertTrue(
        UrlGlob.of("**/{x\\,y,z}", "/url").matches("http://a.test/x,y"), "a comma in a choice");
    assertTrue(UrlGlob.of("**/a\\\\b", "/url").matches("http://a.test/a\\b"));
    assertTrue(UrlGlob.of("**/end\\", "/url").matches("http://a.test/end\\"), "a last backslash");
  }

  @Test
  void aHostileGlobTakesNoLongerThanItsLengthTimesTheUrls() {
    UrlGlob hostile = UrlGlob.of("**a".repeat(300) + "b", "/url");
    // A backtracking matcher would not end in a lifetime here; the bound only stops a hang.
    assertFalse(
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
            java.time.Duration.ofSeconds(30), () -> hostile.matches("a".repeat(8_000))));
  }

  @Test
  void refusesWhatIsNoGlobNamingTheField() {
    assertRefused("", "a URL glob is required");
    assertRefused(null, "a URL glob is required");
    assertRefused("**/{a,b", "leaves a brace open");
    assertRefused("**/a}", "closes a brace it did not open");
    assertRefused("**/{a,{b,c}}", "opens a brace inside a brace");
    assertRefused("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}", "more than 64 alternatives");
    assertRefused("x".repeat(1_001), "at most 1000 characters");
  }

  private static void assertRefused(String glob, String rule) {
    BrowserException e = assertThrows(BrowserException.class, () -> UrlGlob.of(glob, "/url"));
    assertEquals(ErrorCode.BROWSER_INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().startsWith("/url: "), e.getMessage());
    assertTrue(e.getMessage().contains(rule), e.getMessage());
  }
}
