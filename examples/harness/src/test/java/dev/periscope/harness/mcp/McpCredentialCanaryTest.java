package dev.periscope.harness.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.harness.HarnessProcess;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.host.CredentialCanaryTest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The credential canary through MCP: the secret is filled over the protocol, echoed by the page,
 * observed, extracted and photographed, and it appears nowhere in the server's standard output
 * (every MCP message, byte for byte), in its standard error and in no file under HARNESS_HOME.
 * Approval prompts reach the terminal device, never the protocol.
 */
class McpCredentialCanaryTest {
  static final String SECRET = CredentialCanaryTest.SECRET;
  static HttpServer site;
  static final List<String> posted = new CopyOnWriteArrayList<>();
  @TempDir Path home;
  @TempDir Path project;

  @BeforeAll
  static void startSite() throws Exception {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    site.createContext(
        "/login", e -> CredentialCanaryTest.respond(e, CredentialCanaryTest.LOGIN, null));
    site.createContext(
        "/session",
        e -> {
          String body = new String(e.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          posted.add(body);
          String user =
              URLDecoder.decode(body.replaceAll("^user=([^&]*).*$", "$1"), StandardCharsets.UTF_8);
          CredentialCanaryTest.respond(
              e,
              "<!doctype html><html><head><title>Accounts</title></head><body>"
                  + "<h1>Signed in</h1><p>Welcome back, "
                  + user.replace("<", "&lt;")
                  + "</p></body></html>",
              null);
        });
    site.start();
  }

  @AfterAll
  static void stopSite() {
    site.stop(0);
  }

  static String url(String path) {
    return "http://127.0.0.1:" + site.getAddress().getPort() + path;
  }

  private Path install(String approvalRules) throws Exception {
    return install(approvalRules, "");
  }

  /** {@code browserSettings}: more of the plugin's settings, one YAML line indented to fit. */
  private Path install(String approvalRules, String browserSettings) throws Exception {
    posted.clear();
    Path tmp = Files.createDirectories(home.resolve("tmp"));
    InstalledProfiles.install(home, "p");
    var set =
        HarnessProcess.run(
            home,
            tmp,
            (SECRET + "\n").getBytes(StandardCharsets.UTF_8),
            "credentials",
            "set",
            "--profile",
            "p",
            "canary");
    assertEquals(0, set.exitCode(), set.err());
    TestProjects.project(
        project,
        """
        credentials:
          canary: {store: canary, origins: ["%s"]}
        approval:
          rules: [%s]
        plugins:
          browser:
            network: {mode: allowlist, allowCidrs: ["127.0.0.1/32"]}
            %s
        """
            .formatted(url(""), approvalRules, browserSettings));
    return tmp;
  }

  private static CallToolResult fill(McpConnection mcp, CallToolResult observed, String field) {
    Map<String, Object> args = new HashMap<>(McpConnection.target(observed, field));
    args.put("credential_ref", "canary");
    return mcp.call("browser_fill_credential", args);
  }

  @Test
  void theSecretAppearsInNoMcpMessage() throws Exception {
    Path tmp = install("{tool: browser_fill_credential, credential: canary, decision: allow}");
    List<String> sent = new ArrayList<>();
    McpWire wire =
        new McpWire(
            home,
            tmp,
            project,
            Map.of("HARNESS_LOG", "debug", "DEBUG", "pw:api,pw:protocol,pw:browser"));
    try (wire) {
      wire.initialized();
      JsonNode login = wire.call(2, "browser_open", Map.of("url", url("/login")));
      Map<String, Object> user = McpWire.target(login, "Username");
      user.put("credential_ref", "canary");
      assertFalse(wire.call(3, "browser_fill_credential", user).path("isError").asBoolean());
      Map<String, Object> pw =
          McpWire.target(wire.call(4, "browser_observe", Map.of()), "Password");
      pw.put("credential_ref", "canary");
      JsonNode password = wire.call(5, "browser_fill_credential", pw);
      assertTrue(
          McpWire.text(password).contains("Filled " + SECRET.length() + " characters"),
          McpWire.text(password));
      wire.call(6, "browser_screenshot", Map.of());
      wire.call(7, "browser_screenshot", Map.of("full_page", true));
      JsonNode signedIn =
          wire.call(
              9,
              "browser_click",
              McpWire.target(wire.call(8, "browser_observe", Map.of()), "Sign in"));
      assertTrue(
          McpWire.text(signedIn).contains("Welcome back, [REDACTED:canary]"),
          McpWire.text(signedIn));
      wire.call(10, "browser_observe", Map.of("mode", "document"));
      wire.call(11, "browser_extract_article", Map.of());
      wire.call(12, "browser_screenshot", Map.of());
      wire.in.close();
      assertEquals(0, wire.exit(60), Files.readString(wire.err));
      wire.rest();
    }
    assertEquals(1, posted.size());
    assertEquals(
        "user=" + SECRET + "&pw=" + SECRET,
        URLDecoder.decode(posted.get(0), StandardCharsets.UTF_8),
        "the site received what was filled");

    // Every byte the server wrote to standard output, as it came, and everything else it wrote.
    List<String> leaks = new ArrayList<>();
    String out = String.join("\n", wire.raw);
    leaks.addAll(
        CredentialCanaryTest.search(
            "standard output (the MCP messages)", out.getBytes(StandardCharsets.UTF_8)));
    String err = Files.readString(wire.err);
    assertTrue(err.contains("DEBUG"), "debug logging was on");
    leaks.addAll(
        CredentialCanaryTest.search("standard error", err.getBytes(StandardCharsets.UTF_8)));
    List<Path> files = CredentialCanaryTest.everyFile(home);
    for (Path f : files) {
      leaks.addAll(CredentialCanaryTest.search(f.toString(), Files.readAllBytes(f)));
    }
    assertEquals(List.of(), leaks, "the secret leaked");
    assertEquals(12, wire.raw.size(), "one answer for each request: " + wire.raw.size());
    assertTrue(
        out.contains("Welcome back, [REDACTED:canary]"),
        "the results' text is in what was searched");
    System.out.printf(
        "MCP credential canary: %d MCP messages (%d bytes), %d bytes of standard error, %d files:"
            + " no copy%n",
        wire.raw.size(), out.length(), err.length(), files.size());
  }

  @Test
  void aPasswordTheModelTypedAppearsInNoMcpAnswerLogOrFile() throws Exception {
    Path tmp = install("", "credentials: {modelTypedPasswords: allow}");
    McpWire wire =
        new McpWire(
            home,
            tmp,
            project,
            Map.of("HARNESS_LOG", "debug", "DEBUG", "pw:api,pw:protocol,pw:browser"));
    try (wire) {
      wire.initialized();
      JsonNode login = wire.call(2, "browser_open", Map.of("url", url("/login")));
      Map<String, Object> pw = McpWire.target(login, "Password");
      pw.put("value", SECRET);
      JsonNode typed = wire.call(3, "browser_fill", pw);
      assertFalse(typed.path("isError").asBoolean(), McpWire.text(typed));
      assertTrue(McpWire.text(typed).contains("Password (filled)"), McpWire.text(typed));
      wire.call(4, "browser_screenshot", Map.of());
      JsonNode lengths =
          wire.call(
              6,
              "browser_click",
              McpWire.target(wire.call(5, "browser_observe", Map.of()), "Show lengths"));
      assertTrue(
          McpWire.text(lengths).contains("lengths 0 " + SECRET.length()), McpWire.text(lengths));
      wire.call(7, "browser_click", McpWire.target(lengths, "Sign in"));
      wire.call(8, "browser_extract_article", Map.of());
      wire.in.close();
      assertEquals(0, wire.exit(60), Files.readString(wire.err));
      wire.rest();
    }
    assertEquals(
        "user=&pw=" + SECRET,
        URLDecoder.decode(posted.get(0), StandardCharsets.UTF_8),
        "the site received what was typed");
    List<String> leaks = new ArrayList<>();
    String out = String.join("\n", wire.raw);
    leaks.addAll(
        CredentialCanaryTest.search(
            "standard output (the MCP messages)", out.getBytes(StandardCharsets.UTF_8)));
    String err = Files.readString(wire.err);
    assertTrue(err.contains("DEBUG"), "debug logging was on");
    leaks.addAll(
        CredentialCanaryTest.search("standard error", err.getBytes(StandardCharsets.UTF_8)));
    for (Path f : CredentialCanaryTest.everyFile(home)) {
      leaks.addAll(CredentialCanaryTest.search(f.toString(), Files.readAllBytes(f)));
    }
    assertEquals(List.of(), leaks, "the typed password leaked");
    assertEquals(8, wire.raw.size(), "one answer for each request: " + wire.raw.size());
  }

  @Test
  void withNoRuleTheApprovalIsAskedOnTheTerminalDevice() throws Exception {
    Path tmp = install("");
    // A file stands in for the terminal: the answer is read from its start, the prompt appended to
    // it.
    Path terminal = Files.writeString(home.resolve("tty"), "y\n");
    McpConnection asked =
        new McpConnection(home, tmp, Map.of("HARNESS_TTY", terminal.toString()), project);
    try {
      CallToolResult login = asked.call("browser_open", Map.of("url", url("/login")));
      CallToolResult filled = fill(asked, login, "Password");
      assertFalse(filled.isError(), McpConnection.text(filled));
    } finally {
      asked.close();
    }
    String prompt = Files.readString(terminal);
    assertTrue(
        prompt.contains(
            "Allow browser_fill_credential to use credential 'canary' on "
                + url("")
                + " (field 'Password')? [y/N] "),
        prompt);
    assertTrue(
        asked.messages.stream().noneMatch(m -> m.contains("Allow browser_fill_credential")),
        "the prompt never travels over the protocol");

    // No terminal and no rule: denied, never a silent allow.
    McpConnection alone = new McpConnection(home, tmp, Map.of("HARNESS_TTY", "none"), project);
    try {
      CallToolResult login = alone.call("browser_open", Map.of("url", url("/login")));
      CallToolResult denied = fill(alone, login, "Password");
      assertTrue(denied.isError());
      assertTrue(
          McpConnection.text(denied).contains("code=BROWSER_CREDENTIAL_DENIED"),
          McpConnection.text(denied));
    } finally {
      alone.close();
    }
  }

  @Test
  void overHttpTheSecretAndTheTokenAppearInNoAnswerOrLog() throws Exception {
    Path tmp = install("{tool: browser_fill_credential, credential: canary, decision: allow}");
    String token;
    McpHttpRaw raw;
    Path err;
    try (McpHttpProcess server =
        new McpHttpProcess(
            home,
            tmp,
            project,
            Map.of("HARNESS_LOG", "debug", "DEBUG", "pw:api,pw:protocol,pw:browser"))) {
      token = server.token;
      raw = new McpHttpRaw(server);
      String session = raw.initialize();
      JsonNode login = raw.call(session, 2, "browser_open", Map.of("url", url("/login")));
      Map<String, Object> user = McpWire.target(login, "Username");
      user.put("credential_ref", "canary");
      assertFalse(
          raw.call(session, 3, "browser_fill_credential", user).path("isError").asBoolean());
      Map<String, Object> pw =
          McpWire.target(raw.call(session, 4, "browser_observe", Map.of()), "Password");
      pw.put("credential_ref", "canary");
      JsonNode password = raw.call(session, 5, "browser_fill_credential", pw);
      assertTrue(
          McpWire.text(password).contains("Filled " + SECRET.length() + " characters"),
          McpWire.text(password));
      raw.call(session, 6, "browser_screenshot", Map.of("full_page", true));
      JsonNode signedIn =
          raw.call(
              session,
              8,
              "browser_click",
              McpWire.target(raw.call(session, 7, "browser_observe", Map.of()), "Sign in"));
      assertTrue(
          McpWire.text(signedIn).contains("Welcome back, [REDACTED:canary]"),
          McpWire.text(signedIn));
      raw.call(session, 9, "browser_observe", Map.of("mode", "document"));
      raw.call(session, 10, "browser_extract_article", Map.of());
      raw.call(session, 11, "browser_screenshot", Map.of());
      assertEquals(200, raw.delete(session).statusCode(), "ended with its checkpoint");
      server.terminate(java.time.Duration.ofSeconds(60));
      err = Files.writeString(tmp.resolve("http-server-err.txt"), server.err());
    }
    assertEquals(1, posted.size());

    List<String> leaks = new ArrayList<>();
    String answers = String.join("\n", raw.answers);
    assertTrue(answers.contains("Welcome back, [REDACTED:canary]"), "the answers were searched");
    leaks.addAll(
        CredentialCanaryTest.search("HTTP answers", answers.getBytes(StandardCharsets.UTF_8)));
    String log = Files.readString(err);
    assertTrue(log.contains("DEBUG"), "debug logging was on");
    leaks.addAll(
        CredentialCanaryTest.search("standard error", log.getBytes(StandardCharsets.UTF_8)));
    List<Path> files = CredentialCanaryTest.everyFile(home);
    for (Path f : files) {
      leaks.addAll(CredentialCanaryTest.search(f.toString(), Files.readAllBytes(f)));
    }
    assertEquals(List.of(), leaks, "the secret leaked");
    // The bearer token: in its own file, and in no answer, log or other file.
    List<String> tokenSeen = new ArrayList<>();
    if (answers.contains(token)) {
      tokenSeen.add("HTTP answers");
    }
    if (log.contains(token)) {
      tokenSeen.add("standard error");
    }
    for (Path f : files) {
      if (!f.getFileName().toString().equals(BearerToken.FILE)
          && new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).contains(token)) {
        tokenSeen.add(f.toString());
      }
    }
    assertEquals(List.of(), tokenSeen, "the token leaked");
    System.out.printf(
        "MCP over HTTP credential canary: %d answers (%d bytes), %d bytes of standard error, %d"
            + " files: no copy of the secret or the token%n",
        raw.answers.size(), answers.length(), log.length(), files.size());
  }

  @Test
  void overHttpWithNoRuleTheApprovalIsDeniedAndNoTerminalIsAsked() throws Exception {
    Path tmp = install("");
    // A terminal that would say yes: an HTTP server has none to ask, whatever HARNESS_TTY says.
    Path terminal = Files.writeString(home.resolve("tty"), "y\n");
    try (McpHttpProcess server =
        new McpHttpProcess(home, tmp, project, Map.of("HARNESS_TTY", terminal.toString()))) {
      McpHttpRaw raw = new McpHttpRaw(server);
      String session = raw.initialize();
      JsonNode login = raw.call(session, 2, "browser_open", Map.of("url", url("/login")));
      Map<String, Object> pw = McpWire.target(login, "Password");
      pw.put("credential_ref", "canary");
      JsonNode denied = raw.call(session, 3, "browser_fill_credential", pw);
      assertTrue(denied.path("isError").asBoolean(), denied.toString());
      assertTrue(
          McpWire.text(denied).contains("code=BROWSER_CREDENTIAL_DENIED"), McpWire.text(denied));
    }
    assertEquals("y\n", Files.readString(terminal), "nothing was asked on the terminal");
  }
}
