package dev.periscope.harness.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.host.CredentialCanaryTest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code browser_evaluate} over MCP with the official SDK's client: offered only where the project
 * enables scripting; approved by the project's rules for one origin, refused on another and asked
 * on the terminal when no rule decides, the terminal shown the script; its value bounded and
 * redacted; and the script's text is in no file the harness keeps (the journal has its length and
 * hash).
 */
class McpScriptingTest {
  /** A mark in every script this test runs: it must be in no file under HARNESS_HOME. */
  static final String MARK = "mark" + UUID.randomUUID().toString().replace("-", "");

  static final String PASSWORD = CredentialCanaryTest.SECRET;

  static final String PAGE =
      """
      <!doctype html><html><head><title>Shop</title></head><body>
      <h1>Shop</h1><label for="pw">Password</label><input id="pw" type="password">
      <script>window.cart = {items: 3};</script></body></html>""";

  static HttpServer site;
  static HttpServer other;
  static HttpServer third;
  @TempDir Path home;
  @TempDir Path project;

  @BeforeAll
  static void startSites() throws Exception {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    site.createContext("/", e -> CredentialCanaryTest.respond(e, PAGE, null));
    site.start();
    other = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0), 0);
    other.createContext("/", e -> CredentialCanaryTest.respond(e, PAGE, null));
    other.start();
    third = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.3"), 0), 0);
    third.createContext("/", e -> CredentialCanaryTest.respond(e, PAGE, null));
    third.start();
  }

  @AfterAll
  static void stopSites() {
    site.stop(0);
    other.stop(0);
    third.stop(0);
  }

  static String siteUrl(String path) {
    return "http://127.0.0.1:" + site.getAddress().getPort() + path;
  }

  static String otherUrl(String path) {
    return "http://127.0.0.2:" + other.getAddress().getPort() + path;
  }

  static String thirdUrl(String path) {
    return "http://127.0.0.3:" + third.getAddress().getPort() + path;
  }

  private Path install(String rules, String scripting) throws Exception {
    Path tmp = Files.createDirectories(home.resolve("tmp"));
    InstalledProfiles.install(home, "p");
    TestProjects.project(
        project,
        """
        approval:
          rules: [%s]
        plugins:
          browser:
            network: {mode: allowlist, allowCidrs: ["127.0.0.1/32", "127.0.0.2/32", "127.0.0.3/32"]}
            credentials: {modelTypedPasswords: allow}
            %s
        """
            .formatted(rules, scripting));
    return tmp;
  }

  static CallToolResult evaluate(McpConnection mcp, String expression) {
    return mcp.call("browser_evaluate", Map.of("expression", expression));
  }

  @Test
  void approvedBoundedRedactedAndRefusedOverMcp() throws Exception {
    Path tmp =
        install(
            "{tool: browser_evaluate, origin: \""
                + siteUrl("")
                + "\", decision: allow}, {tool: browser_evaluate, origin: \""
                + otherUrl("")
                + "\", decision: allow}",
            "scripting: {enabled: true}");
    Path terminal = Files.writeString(home.resolve("tty"), "n\n");
    McpConnection mcp =
        new McpConnection(home, tmp, Map.of("HARNESS_TTY", terminal.toString()), project);
    try {
      assertTrue(
          mcp.client.listTools().tools().stream()
              .anyMatch(t -> t.name().equals("browser_evaluate")),
          "offered where the project enables scripting");
      CallToolResult page = mcp.call("browser_open", Map.of("url", siteUrl("/shop")));
      assertFalse(page.isError(), McpConnection.text(page));

      CallToolResult cart = evaluate(mcp, "/* " + MARK + " */ window.cart");
      assertFalse(cart.isError(), McpConnection.text(cart));
      assertTrue(McpConnection.text(cart).contains("{\"items\":3}"), McpConnection.text(cart));
      assertTrue(
          String.valueOf(McpConnection.structured(cart).get("result")).contains("items"),
          String.valueOf(McpConnection.structured(cart)));

      CallToolResult big = evaluate(mcp, "/* " + MARK + " */ 'x'.repeat(30000)");
      assertTrue(
          McpConnection.text(big).contains("JSON of 30002 characters (the first 20000 shown)"),
          McpConnection.text(big));

      // A password the user gave, typed here: no script in this tab, nobody asked.
      Map<String, Object> pw = new HashMap<>(McpConnection.target(big, "Password"));
      pw.put("value", PASSWORD);
      CallToolResult typed = mcp.call("browser_fill", pw);
      assertFalse(typed.isError(), McpConnection.text(typed));
      CallToolResult here = evaluate(mcp, "/* " + MARK + " */ document.getElementById('pw').value");
      assertTrue(here.isError(), McpConnection.text(here));
      assertTrue(
          McpConnection.text(here).contains("a secret was filled in this tab"),
          McpConnection.text(here));

      // A tab of another origin: a value that is the password comes back redacted.
      mcp.call("browser_tabs", Map.of("action", "open", "url", otherUrl("/again")));
      CallToolResult echoed =
          evaluate(
              mcp,
              "/* "
                  + MARK
                  + " */ ['"
                  + PASSWORD.substring(0, 4)
                  + "', '"
                  + PASSWORD.substring(4)
                  + "'].join('')");
      assertFalse(echoed.isError(), McpConnection.text(echoed));
      assertTrue(
          McpConnection.text(echoed).contains("[REDACTED:typed-password]"),
          McpConnection.text(echoed));

      // No rule for the other origin: the terminal is asked, shown the script, and says no.
      mcp.call("browser_tabs", Map.of("action", "open", "url", thirdUrl("/elsewhere")));
      CallToolResult refused =
          evaluate(mcp, "/* " + MARK + " */ document.title = 'changed by the script'");
      assertTrue(refused.isError(), McpConnection.text(refused));
      assertTrue(
          McpConnection.text(refused).contains("BROWSER_POLICY_DENIED"),
          McpConnection.text(refused));
      String prompt = Files.readString(terminal);
      assertTrue(prompt.contains("document.title = 'changed by the script'"), prompt);
      assertTrue(prompt.contains("Allow this script on " + thirdUrl("") + "?"), prompt);
      CallToolResult after = mcp.call("browser_observe", Map.of());
      assertFalse(McpConnection.text(after).contains("changed by the script"), "it did not run");
      for (CallToolResult r : List.of(cart, big, here, echoed, refused)) {
        assertFalse(
            (McpConnection.text(r) + McpConnection.structured(r)).contains(PASSWORD),
            McpConnection.text(r));
      }
    } finally {
      mcp.close();
    }
    // The journal keeps each script's length and hash: its text is in no file of the harness's.
    List<String> holding =
        CredentialCanaryTest.everyFile(home).stream()
            .filter(f -> !f.equals(terminal))
            .filter(
                f -> {
                  try {
                    return new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)
                        .contains(MARK);
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                })
            .map(Path::toString)
            .toList();
    assertEquals(List.of(), holding, "files holding a script's text");
  }

  @Test
  void notOfferedUnlessTheProjectEnablesScripting() throws Exception {
    Path tmp = install("{tool: browser_evaluate, decision: allow}", "");
    McpConnection mcp = new McpConnection(home, tmp, Map.of(), project);
    try {
      assertFalse(
          mcp.client.listTools().tools().stream()
              .anyMatch(t -> t.name().equals("browser_evaluate")),
          "a rule alone does not turn scripting on");
      assertFalse(
          String.valueOf(mcp.client.getServerInstructions()).contains("browser_evaluate"),
          "nor does the scripting skill's guidance reach the model");
      io.modelcontextprotocol.spec.McpError unknown =
          org.junit.jupiter.api.Assertions.assertThrows(
              io.modelcontextprotocol.spec.McpError.class, () -> evaluate(mcp, "1"));
      assertTrue(
          unknown.getMessage().contains("Unknown tool \"browser_evaluate\""), unknown.getMessage());
    } finally {
      mcp.close();
    }
  }
}
