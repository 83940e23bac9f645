package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.host.ApprovalDecision;
import dev.periscope.api.host.ApprovalRequest;
import dev.periscope.harness.profile.ProjectConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuleApprovalServiceTest {
  private static ApprovalRequest request(String credential, String origin) {
    return new ApprovalRequest(
        "browser_fill_credential", credential, origin, "Password", "fill a password");
  }

  @Test
  void theFirstMatchingRuleDecides() {
    var service =
        new RuleApprovalService(
            List.of(
                new ProjectConfig.ApprovalRule(
                    "browser_fill_credential", "github", "https://github.test", true),
                new ProjectConfig.ApprovalRule("browser_fill_credential", null, null, false)),
            Optional.empty());
    assertEquals(
        ApprovalDecision.ALLOW_ONCE,
        service.decide(request("github", "https://github.test"), Cancellation.none()));
    assertEquals(
        ApprovalDecision.DENY,
        service.decide(request("github", "https://github.test.evil.test"), Cancellation.none()));
    assertEquals(
        ApprovalDecision.DENY,
        service.decide(request("shop", "https://github.test"), Cancellation.none()));
  }

  @Test
  void aHandoffIsAskedOfThePersonWithItsLinkAndNoRuleAnswersItForThem(@TempDir Path dir)
      throws Exception {
    ApprovalRequest handoff =
        new ApprovalRequest(
            "browser_handoff",
            null,
            "https://shop.test",
            null,
            "The agent hands you a page\nhttp://127.0.0.1:1/handoff/ab?token=t\u001b[2J");
    var allowAll = List.of(new ProjectConfig.ApprovalRule("browser_handoff", null, null, true));
    // No terminal: nobody can take the page, whatever the rules allow.
    assertEquals(
        ApprovalDecision.DENY,
        new RuleApprovalService(allowAll, Optional.empty()).decide(handoff, Cancellation.none()));
    // Told, not asked: nothing needs answering (the person takes the page by its link).
    Path tty = Files.writeString(dir.resolve("tty"), "");
    assertEquals(
        ApprovalDecision.ALLOW_ONCE,
        new RuleApprovalService(allowAll, Optional.of(new Terminal(tty)))
            .decide(handoff, Cancellation.none()));
    String shown = Files.readString(tty);
    assertTrue(shown.contains("http://127.0.0.1:1/handoff/ab?token=t"), shown);
    assertFalse(shown.contains("[y/N]"), shown);
    assertTrue(!shown.contains("\u001b"), "a control character reached the terminal");
    // A rule may deny it.
    assertEquals(
        ApprovalDecision.DENY,
        new RuleApprovalService(
                List.of(new ProjectConfig.ApprovalRule("browser_handoff", null, null, false)),
                Optional.of(new Terminal(Files.writeString(dir.resolve("tty2"), ""))))
            .decide(handoff, Cancellation.none()));
  }

  @Test
  void aRulesOriginIsAPatternComparedAsParsedOrigins() {
    var service =
        new RuleApprovalService(
            List.of(
                new ProjectConfig.ApprovalRule(
                    "browser_fill_credential", null, "https://*.github.test", true),
                new ProjectConfig.ApprovalRule(
                    "browser_fill_credential", null, "http://127.0.0.1:*", true)),
            Optional.empty());
    assertEquals(
        ApprovalDecision.ALLOW_ONCE,
        service.decide(request("gh", "https://api.github.test"), Cancellation.none()));
    assertEquals(
        ApprovalDecision.ALLOW_ONCE,
        service.decide(request("gh", "http://127.0.0.1:8080"), Cancellation.none()));
    for (String hostile :
        List.of(
            "https://github.test",
            "https://api.github.test.evil.test",
            "http://api.github.test",
            "https://api.github.test:8443",
            "http://127.0.0.2:8080",
            "null")) {
      assertEquals(
          ApprovalDecision.DENY,
          service.decide(request("gh", hostile), Cancellation.none()),
          hostile);
    }
  }

  @Test
  void deniesWhenNoRuleMatchesAndNoTerminalCanAsk() {
    var service =
        new RuleApprovalService(
            List.of(new ProjectConfig.ApprovalRule("other_tool", null, null, true)),
            Optional.empty());
    assertEquals(
        ApprovalDecision.DENY,
        service.decide(request("github", "https://github.test"), Cancellation.none()));
  }

  @Test
  void withNoMatchingRuleItAsksOnTheTerminalAndOnlyYesAllows(@TempDir Path dir) throws Exception {
    for (var answer :
        java.util.Map.of(
                "y\n",
                ApprovalDecision.ALLOW_ONCE,
                " Y \n",
                ApprovalDecision.ALLOW_ONCE,
                "n\n",
                ApprovalDecision.DENY,
                "yes\n",
                ApprovalDecision.DENY,
                "",
                ApprovalDecision.DENY)
            .entrySet()) {
      // A file stands in for the terminal device: the answer is read from its start, the prompt
      // appended.
      Path device =
          Files.writeString(
              dir.resolve("tty-" + answer.getValue() + answer.getKey().strip()), answer.getKey());
      var service = new RuleApprovalService(List.of(), Optional.of(new Terminal(device)));
      ApprovalRequest hostile =
          new ApprovalRequest(
              "browser_fill_credential",
              "github",
              "https://github.test",
              "Pass\u001b[2Kword\u202e",
              "fill a password");
      assertEquals(
          answer.getValue(), service.decide(hostile, Cancellation.none()), answer.getKey());
      String prompt = Files.readString(device);
      assertTrue(
          prompt.contains(
              "Allow browser_fill_credential to use credential 'github' on https://github.test"
                  + " (field 'Pass?[2Kword?')? [y/N] "),
          prompt);
    }
  }

  @Test
  void aTerminalThatCannotBeOpenedDenies(@TempDir Path dir) {
    var service =
        new RuleApprovalService(
            List.of(), Optional.of(new Terminal(dir.resolve("no-such-device"))));
    assertEquals(
        ApprovalDecision.DENY,
        service.decide(request("github", "https://github.test"), Cancellation.none()));
  }
}
