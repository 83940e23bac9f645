package dev.periscope.api.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class BrowserExceptionTest {
  @Test
  void rendersTheFailureLineFieldsInTheirFixedOrder() {
    var e =
        new BrowserException(
                ErrorCode.BROWSER_STALE_REFERENCE,
                "observation \"x\" is stale; observe the page again")
            .withUrl("https://evidence.test/");
    assertEquals(
        "code=BROWSER_STALE_REFERENCE url=https://evidence.test/ observation=invalid lease=intact"
            + " recommended_action=browser_observe retryable=false",
        e.failureLine());
  }

  @Test
  void leavesOutAnUnknownUrlAndAMissingRecoveryTool() {
    var e = new BrowserException(ErrorCode.BROWSER_INVALID_URL, "bad");
    assertEquals(
        "code=BROWSER_INVALID_URL observation=valid lease=intact retryable=false", e.failureLine());
  }

  @Test
  void marksRefsInvalidWhenTheLeaseWasRebuilt() {
    var e =
        BrowserException.rebuilt(
            ErrorCode.BROWSER_POLICY_DENIED, "denied", "https://a.test/", null);
    assertEquals(
        "code=BROWSER_POLICY_DENIED url=https://a.test/ observation=invalid lease=rebuilt retryable=false",
        e.failureLine());
  }

  @Test
  void neverShowsASecretsValue() {
    var s = dev.periscope.api.host.Secret.of("hunter2-canary");
    assertEquals("Secret[redacted]", s.toString());
    assertEquals("Secret[redacted]", String.valueOf(s));
  }
}
