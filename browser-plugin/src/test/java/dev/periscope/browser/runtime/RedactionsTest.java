package dev.periscope.browser.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.host.Secret;
import org.junit.jupiter.api.Test;

/** What a session's redaction keeps of the secrets filled into its pages. */
class RedactionsTest {
  private static final BrowserSessionId S = new BrowserSessionId("session-r");

  @Test
  void aCredentialFilledAgainWithANewValueKeepsItsOldValueRedactedToo() {
    Redactions redactions = new Redactions();
    redactions.remember(S, "bank", Secret.of("old-Pa55word"));
    // The credential was changed, and filled again: the page may still show the old value.
    redactions.remember(S, "bank", Secret.of("new-Pa55word"));
    assertEquals(
        "was [REDACTED:bank], is [REDACTED:bank]",
        redactions.text(S, "was old-Pa55word, is new-Pa55word"));
    assertEquals("{\"v\":\"[REDACTED:bank]\"}", redactions.json(S, "{\"v\":\"old-Pa55word\"}"));
  }

  @Test
  void theSameValueFilledAgainIsKeptOnce() {
    Redactions redactions = new Redactions();
    redactions.remember(S, "bank", Secret.of("same-Pa55word"));
    redactions.remember(S, "bank", Secret.of("same-Pa55word"));
    assertEquals("[REDACTED:bank]", redactions.text(S, "same-Pa55word"));
  }
}
