package dev.periscope.api.host;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Origin patterns against hostile look-alikes: compared as parsed origins, never as strings. */
class OriginPatternTest {
  @Test
  void admitsExactlyTheOriginItNames() {
    OriginPattern bank = OriginPattern.parse("https://bank.test");
    assertTrue(bank.matches("https://bank.test"));
    assertTrue(bank.matches("https://BANK.test:443"));
    assertTrue(bank.matches("https://bank.test./login?x=1"));
    for (String hostile :
        List.of(
            "https://bank.test.evil.test",
            "http://bank.test",
            "https://bank.test:8443",
            "https://evilbank.test",
            "https://login.bank.test",
            "https://bank.test@evil.test",
            "https://user@bank.test",
            "javascript:alert(1)",
            "https://xn--bnk-sla.test",
            "",
            "bank.test")) {
      assertFalse(bank.matches(hostile), hostile);
    }
  }

  @Test
  void aStarStandsForOneWholeLeftmostLabelOrThePort() {
    OriginPattern sub = OriginPattern.parse("https://*.bank.test");
    assertTrue(sub.matches("https://login.bank.test"));
    assertFalse(sub.matches("https://bank.test"));
    assertFalse(sub.matches("https://a.b.bank.test"));
    assertFalse(sub.matches("https://login.bank.test.evil.test"));
    OriginPattern anyPort = OriginPattern.parse("http://127.0.0.1:*");
    assertTrue(anyPort.matches("http://127.0.0.1:8080"));
    assertTrue(anyPort.matches("http://127.0.0.1"));
    assertFalse(anyPort.matches("https://127.0.0.1:8080"));
    assertFalse(anyPort.matches("http://127.0.0.2:8080"));
  }

  @Test
  void refusesMalformedPatternsNamingThem() {
    for (String bad :
        List.of(
            "bank.test",
            "ftp://bank.test",
            "https://b*nk.test",
            "https://*bank.test",
            "https://bank.*.test",
            "https://bank.test/login",
            "https://user@bank.test",
            "https://bank.test:99999",
            "https://bank.test:x",
            "https://",
            "https://*.",
            "")) {
      var e = assertThrows(IllegalArgumentException.class, () -> OriginPattern.parse(bad), bad);
      assertTrue(e.getMessage().startsWith("invalid origin \"" + bad + "\""), e.getMessage());
    }
  }
}
