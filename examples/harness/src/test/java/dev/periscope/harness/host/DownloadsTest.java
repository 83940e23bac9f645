package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Downloads into the attachment store through the real host: what an action downloads is kept,
 * typed from its bytes, with its sha256, as the agent's attachment (and can be uploaded again); one
 * over the cap is refused; one the page starts on its own is cancelled and reported; a project that
 * keeps no downloads refuses the link.
 */
class DownloadsTest {
  static HttpServer site;
  static final byte[] PDF =
      "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
          .getBytes(StandardCharsets.US_ASCII);
  static final byte[] CSV = "id,name\n1,lamp\n2,ladder\n".getBytes(StandardCharsets.UTF_8);

  static final String FILES =
      """
      <!doctype html><html><head><title>Files</title></head><body>
      <nav><a href="/report.pdf" download="report.pdf">Report</a>
      <a href="/export">Export</a>
      <a href="/big.bin" download="big.bin">Big file</a></nav>
      <button onclick="for (let i = 0; i < 12; i++) { const a = document.createElement('a');
        a.href = '/report.pdf?' + i; a.download = 'r' + i + '.pdf'; document.body.append(a); a.click(); }">
        Many</button>
      <label>Attach <input type="file" id="f"></label><p id="chosen">none</p>
      <script>document.getElementById('f').addEventListener('change', (e) => {
        const f = e.target.files[0];
        document.getElementById('chosen').textContent = 'chose ' + f.type + ', ' + f.size + ' bytes';
      });</script></body></html>""";

  static final String AUTO =
      """
      <!doctype html><html><head><title>Auto</title></head><body><p>waiting</p>
      <script>setTimeout(() => location.href = '/export', 300);</script></body></html>""";

  static void send(HttpExchange e, String type, String disposition, byte[] body)
      throws IOException {
    e.getResponseHeaders().set("Content-Type", type);
    if (disposition != null) {
      e.getResponseHeaders().set("Content-Disposition", disposition);
    }
    e.sendResponseHeaders(200, body.length);
    try (OutputStream out = e.getResponseBody()) {
      out.write(body);
    }
  }

  @BeforeAll
  static void serve() throws Exception {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    site.createContext(
        "/",
        e -> {
          switch (e.getRequestURI().getPath()) {
            // The site says nothing true of the file's type: it is sniffed from the bytes.
            case "/report.pdf" -> send(e, "application/octet-stream", null, PDF);
            case "/export" -> send(e, "text/html", "attachment; filename=export.csv", CSV);
            case "/big.bin" -> send(e, "application/octet-stream", null, new byte[2_000]);
            case "/auto" ->
                send(e, "text/html; charset=utf-8", null, AUTO.getBytes(StandardCharsets.UTF_8));
            default ->
                send(e, "text/html; charset=utf-8", null, FILES.getBytes(StandardCharsets.UTF_8));
          }
        });
    site.start();
  }

  @AfterAll
  static void stop() {
    site.stop(0);
  }

  static String url(String path) {
    return "http://127.0.0.1:" + site.getAddress().getPort() + path;
  }

  @TempDir Path homeDir;
  @TempDir Path projectDir;
  private HarnessHome home;

  @BeforeEach
  void install() throws Exception {
    home = new HarnessHome(homeDir);
    InstalledProfiles.install(home, "p");
  }

  static ToolResult call(Host host, String tool, Map<String, Object> args) {
    return host.call("agent", tool, args, Cancellation.none());
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> target(ToolResult r, String name) {
    var o = (Map<String, Object>) r.structured().get("observation");
    var elements = (List<Map<String, Object>>) o.get("elements");
    var e =
        elements.stream()
            .filter(x -> name.equals(x.get("name")))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no " + name + " in " + r.text()));
    return new HashMap<>(Map.of("observation_id", o.get("id"), "element_ref", e.get("ref")));
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> downloaded(ToolResult r) {
    var all = (List<Map<String, Object>>) r.structured().get("downloads");
    assertEquals(1, all == null ? 0 : all.size(), r.text());
    return all.get(0);
  }

  static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  @Test
  void whatAnActionDownloadsIsKeptAsAnAttachmentTypedFromItsBytes() throws Exception {
    TestProjects.project(projectDir, TestProjects.LOOPBACK_ONLY);
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      ToolResult page = call(host, "browser_open", Map.of("url", url("/files")));
      ToolResult report = call(host, "browser_click", target(page, "Report"));
      assertFalse(report.isError(), report.text());
      Map<String, Object> pdf = downloaded(report);
      assertEquals("report.pdf", pdf.get("name"));
      assertEquals("application/pdf", pdf.get("mime_type"));
      assertEquals(PDF.length, ((Number) pdf.get("bytes")).intValue());
      assertEquals(sha256(PDF), pdf.get("sha256"));
      String ref = (String) pdf.get("attachment");
      assertTrue(ref.startsWith("attachment-"), report.text());
      assertTrue(
          report.text().startsWith("Downloaded \"report.pdf\" (application/pdf"), report.text());

      ToolResult export = call(host, "browser_click", target(report, "Export"));
      Map<String, Object> csv = downloaded(export);
      assertEquals("export.csv", csv.get("name"));
      assertEquals("text/plain", csv.get("mime_type"), "sniffed, not the site's text/html");
      assertEquals(sha256(CSV), csv.get("sha256"));

      // The attachment is the very file: uploaded again, the page sees a PDF of its size.
      ToolResult again = call(host, "browser_observe", Map.of());
      Map<String, Object> attach = target(again, "Attach");
      attach.put("attachment_refs", List.of(ref));
      ToolResult uploaded = call(host, "browser_upload", attach);
      assertTrue(
          uploaded.text().contains("chose application/pdf, " + PDF.length + " bytes"),
          uploaded.text());

      // One action may start at most 5 downloads: past them the action fails naming the limit,
      // and keeps none.
      ToolResult many =
          call(host, "browser_click", target(call(host, "browser_observe", Map.of()), "Many"));
      assertTrue(many.text().contains("code=BROWSER_POLICY_DENIED"), many.text());
      assertTrue(
          many.text()
              .contains("the page started more than 5 downloads in one action; none was kept"),
          many.text());
      assertFalse(many.structured().containsKey("downloads"), many.text());
      ToolResult after = call(host, "browser_observe", Map.of());
      assertFalse(after.structured().containsKey("downloads"), after.text());
      assertFalse(after.text().contains("Downloaded"), after.text());

      // A download the page starts on its own is cancelled and reported, not kept.
      call(host, "browser_open", Map.of("url", url("/auto")));
      ToolResult later = null;
      for (int i = 0; i < 50; i++) {
        Thread.sleep(100);
        later = call(host, "browser_observe", Map.of());
        if (later.text().contains("download")) {
          break;
        }
      }
      assertTrue(
          later.text().contains("the page started a download, which was cancelled"), later.text());
      assertFalse(later.structured().containsKey("downloads"), later.text());
    }
  }

  @Test
  void aDownloadOverTheCapIsRefusedAndAProjectThatKeepsNoneRefusesTheLink() throws Exception {
    TestProjects.project(
        projectDir,
        """
        plugins:
          browser:
            network: {mode: allowlist, allowCidrs: ["127.0.0.1/32"]}
            downloads: {maxBytes: 1000}
        """);
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      ToolResult page = call(host, "browser_open", Map.of("url", url("/files")));
      ToolResult big = call(host, "browser_click", target(page, "Big file"));
      assertTrue(big.text().contains("code=BROWSER_POLICY_DENIED"), big.text());
      assertTrue(
          big.text()
              .contains(
                  "big.bin is 2000 bytes, more than 1000 (plugins.browser.downloads.maxBytes)"),
          big.text());
    }
    TestProjects.project(
        projectDir,
        """
        plugins:
          browser:
            network: {mode: allowlist, allowCidrs: ["127.0.0.1/32"]}
            downloads: {enabled: false}
        """);
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      ToolResult page = call(host, "browser_open", Map.of("url", url("/files")));
      ToolResult refused = call(host, "browser_click", target(page, "Report"));
      assertTrue(refused.text().contains("code=BROWSER_POLICY_DENIED"), refused.text());
      assertTrue(refused.text().contains("it downloads a file"), refused.text());
      ToolResult export = call(host, "browser_click", target(page, "Export"));
      assertTrue(export.text().contains("started a download, which was cancelled"), export.text());
    }
  }
}
