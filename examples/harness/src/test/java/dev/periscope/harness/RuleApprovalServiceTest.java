package dev.periscope.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.periscope.api.Cancellation;
import dev.periscope.api.host.ApprovalDecision;
import dev.periscope.api.host.ApprovalRequest;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RuleApprovalServiceTest {
  private static ApprovalRequest request(String credential, String origin) {
    return new ApprovalRequest("browser_fill_credential", credential, origin, "Password", "fill a password");
  }

  @Test
  void theFirstMatchingRuleDecides() {
    var service = new RuleApprovalService(List.of(
        new ProjectConfig.ApprovalRule("browser_fill_credential", "github", "https://github.test", true),
        new ProjectConfig.ApprovalRule("browser_fill_credential", null, null, false)), Optional.empty());
    assertEquals(ApprovalDecision.ALLOW_ONCE, service.decide(request("github", "https://github.test"), Cancellation.none()));
    assertEquals(ApprovalDecision.DENY, service.decide(request("github", "https://github.test.evil.test"), Cancellation.none()));
    assertEquals(ApprovalDecision.DENY, service.decide(request("shop", "https://github.test"), Cancellation.none()));
  }

  @Test
  void aRulesOriginIsAPatternComparedAsParsedOrigins() {
    var service = new RuleApprovalService(List.of(
        new ProjectConfig.ApprovalRule("browser_fill_credential", null, "https://*.github.test", true),
        new ProjectConfig.ApprovalRule("browser_fill_credential", null, "http://127.0.0.1:*", true)), Optional.empty());
    assertEquals(ApprovalDecision.ALLOW_ONCE, service.decide(request("gh", "https://api.github.test"), Cancellation.none()));
    assertEquals(ApprovalDecision.ALLOW_ONCE, service.decide(request("gh", "http://127.0.0.1:8080"), Cancellation.none()));
    for (String hostile : List.of("https://github.test", "https://api.github.test.evil.test", "http://api.github.test",
        "https://api.github.test:8443", "http://127.0.0.2:8080", "null")) {
      assertEquals(ApprovalDecision.DENY, service.decide(request("gh", hostile), Cancellation.none()), hostile);
    }
  }

  @Test
  void deniesWhenNoRuleMatchesAndNoTerminalCanAsk() {
    var service = new RuleApprovalService(List.of(
        new ProjectConfig.ApprovalRule("other_tool", null, null, true)), Optional.empty());
    assertEquals(ApprovalDecision.DENY, service.decide(request("github", "https://github.test"), Cancellation.none()));
  }
}
