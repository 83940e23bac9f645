package dev.periscope.browser.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.host.ApprovalDecision;
import dev.periscope.api.host.ApprovalService;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Who lets a script run: the project first, then the approval service, failing closed. */
class PageScriptingTest {
  static final String SCRIPT = "() => document.title";

  @Test
  void scriptingIsOffUnlessTheProjectEnablesIt() {
    BrowserException e =
        assertThrows(BrowserException.class, () -> PageScripting.off().requireEnabled());
    assertEquals(ErrorCode.BROWSER_POLICY_DENIED, e.code());
    assertTrue(e.getMessage().contains("scripting.enabled: true"), e.getMessage());
  }

  @Test
  void withoutAnApprovalServiceNoScriptRuns() {
    PageScripting scripting = new PageScripting(true, Optional.empty());
    BrowserException e =
        assertThrows(
            BrowserException.class,
            () -> scripting.approve(SCRIPT, "https://shop.example", Cancellation.none()));
    assertEquals(ErrorCode.BROWSER_POLICY_DENIED, e.code());
    assertTrue(e.getMessage().contains("no approval service"), e.getMessage());
  }

  @Test
  void aRefusalOrAFailingServiceRefusesAndTheFailureIsNotQuoted() {
    ApprovalService refusing = (request, c) -> ApprovalDecision.DENY;
    assertThrows(
        BrowserException.class,
        () ->
            new PageScripting(true, Optional.of(refusing))
                .approve(SCRIPT, "https://shop.example", Cancellation.none()));
    ApprovalService failing =
        (request, c) -> {
          throw new IllegalStateException("quoting " + request.reason());
        };
    BrowserException e =
        assertThrows(
            BrowserException.class,
            () ->
                new PageScripting(true, Optional.of(failing))
                    .approve(SCRIPT, "https://shop.example", Cancellation.none()));
    assertFalse(e.getMessage().contains("document.title"), e.getMessage());
    assertTrue(e.getMessage().contains("did not run"), e.getMessage());
  }

  @Test
  void theJournalKeepsAScriptsLengthAndHashNeverItsText() {
    Map<String, Object> described = new BrowserAction.Evaluate("'secret-ish' + 1").describe();
    assertEquals("evaluate", described.get("kind"));
    assertEquals(16, described.get("expression_chars"));
    assertTrue(
        String.valueOf(described.get("expression_sha256")).matches("[0-9a-f]{64}"),
        described.toString());
    assertFalse(described.toString().contains("secret-ish"), described.toString());
  }

  @Test
  void anEmptyOrOverlongScriptIsRefusedNamingTheField() {
    BrowserException empty =
        assertThrows(BrowserException.class, () -> new BrowserAction.Evaluate(" ").validate());
    assertTrue(empty.getMessage().startsWith("/expression"), empty.getMessage());
    BrowserException longOne =
        assertThrows(
            BrowserException.class,
            () -> new BrowserAction.Evaluate("1".repeat(10_001)).validate());
    assertTrue(longOne.getMessage().contains("at most 10000"), longOne.getMessage());
  }
}
