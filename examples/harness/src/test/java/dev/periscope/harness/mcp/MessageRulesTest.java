package dev.periscope.harness.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class MessageRulesTest {
  static final Set<String> TOOLS =
      Set.of("browser_open", "browser_click", "browser_fill", "browser_fill_credential");

  @Test
  void anUnknownToolsMessageNamesItAndTheClosestTool() {
    assertEquals(
        "Unknown tool \"browser_clik\": this server offers no tool of that name; did you mean"
            + " browser_click? (tools/list names the 4 it offers)",
        MessageRules.unknownTool("browser_clik", TOOLS));
    assertTrue(
        MessageRules.unknownTool("browser_fill_credentials", TOOLS)
            .contains("did you mean browser_fill_credential?"));
    assertTrue(MessageRules.unknownTool("brwoser_open", TOOLS).contains("browser_open?"));
    // Nothing close: no guess.
    String far = MessageRules.unknownTool("rm_rf", TOOLS);
    assertFalse(far.contains("did you mean"), far);
    // A hostile name is cut and shown without control characters.
    String hostile = MessageRules.unknownTool("x\n\u001b[2J" + "y".repeat(5000), TOOLS);
    assertFalse(hostile.contains("\n") || hostile.contains("\u001b"), hostile);
    assertTrue(hostile.length() < 300, hostile);
  }
}
