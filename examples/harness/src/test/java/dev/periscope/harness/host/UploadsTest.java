package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * browser_upload through the real host: a screenshot the agent took, stored as an attachment,
 * uploaded into a form by its ref, through a file input and through the chooser a styled button
 * opens; refused by a strict project, for another agent's attachment and past the byte cap.
 */
class UploadsTest {
  static HttpServer site;

  static final String FORM =
      """
      <!doctype html><html><head><title>Upload</title></head><body>
      <form method="post" action="/received" enctype="multipart/form-data">
        <label>Receipt <input type="file" name="receipt" id="receipt"></label>
        <button type="submit">Send</button>
      </form>
      <input type="file" id="hidden" style="display:none">
      <button id="pick" onclick="document.getElementById('hidden').click()">Choose a photo</button>
      <p id="chosen">none</p>
      <script>
        const show = (input) => input.addEventListener('change', () => {
          const f = input.files[0];
          document.getElementById('chosen').textContent = 'chose ' + f.name + ' (' + f.type + ', ' + f.size + ' bytes)';
        });
        show(document.getElementById('receipt')); show(document.getElementById('hidden'));
      </script></body></html>""";

  @BeforeAll
  static void serve() throws Exception {
    site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    site.createContext(
        "/",
        e -> {
          String body;
          if (e.getRequestURI().getPath().equals("/received")) {
            String form =
                new String(e.getRequestBody().readAllBytes(), StandardCharsets.ISO_8859_1);
            boolean png = form.contains("Content-Type: image/png") && form.contains("\u0089PNG");
            body =
                "<!doctype html><html><body><p>received "
                    + (png ? "a PNG" : "nothing")
                    + "</p></body></html>";
          } else {
            body = FORM;
          }
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          e.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
          e.sendResponseHeaders(200, bytes.length);
          try (OutputStream out = e.getResponseBody()) {
            out.write(bytes);
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

  static ToolResult call(Host host, String agent, String tool, Map<String, Object> args) {
    return host.call(agent, tool, args, Cancellation.none());
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
  static String screenshot(Host host, String agent) {
    ToolResult shot = call(host, agent, "browser_screenshot", Map.of());
    assertFalse(shot.isError(), shot.text());
    return (String) ((Map<String, Object>) shot.structured().get("attachment")).get("ref");
  }

  @Test
  void aScreenshotAttachmentIsUploadedThroughAFileInputAndThroughAButtonsChooser()
      throws Exception {
    TestProjects.project(projectDir, TestProjects.LOOPBACK_ONLY);
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      call(host, "agent", "browser_open", Map.of("url", url("/form")));
      String ref = screenshot(host, "agent");
      ToolResult page = call(host, "agent", "browser_observe", Map.of("mode", "document"));

      Map<String, Object> input = target(page, "Receipt");
      input.put("attachment_refs", List.of(ref));
      ToolResult uploaded = call(host, "agent", "browser_upload", input);
      assertFalse(uploaded.isError(), uploaded.text());
      assertTrue(uploaded.text().contains("chose " + ref + ".png (image/png, "), uploaded.text());
      ToolResult sent = call(host, "agent", "browser_click", target(uploaded, "Send"));
      assertTrue(sent.text().contains("received a PNG"), sent.text());

      ToolResult again = call(host, "agent", "browser_open", Map.of("url", url("/form")));
      Map<String, Object> button = target(again, "Choose a photo");
      button.put("attachment_refs", List.of(ref));
      ToolResult chosen = call(host, "agent", "browser_upload", button);
      assertFalse(chosen.isError(), chosen.text());
      assertTrue(chosen.text().contains("chose " + ref + ".png"), chosen.text());

      // The button alone still opens no picker: the page's own attempt is refused, as before.
      ToolResult clicked = call(host, "agent", "browser_click", target(chosen, "Choose a photo"));
      assertTrue(clicked.text().contains("code=BROWSER_POLICY_DENIED"), clicked.text());
      assertTrue(clicked.text().contains("file picker"), clicked.text());

      // Another agent session's attachment is not this one's to send.
      ToolResult other = call(host, "other", "browser_open", Map.of("url", url("/form")));
      Map<String, Object> theirs = target(other, "Receipt");
      theirs.put("attachment_refs", List.of(ref));
      ToolResult refused = call(host, "other", "browser_upload", theirs);
      assertTrue(refused.text().contains("code=BROWSER_INVALID_ARGUMENT"), refused.text());
      assertTrue(refused.text().contains("no attachment"), refused.text());
    }
  }

  @Test
  void aStrictProjectRefusesUploadsNamingTheSettingAndTheCapRefusesLargeOnes() throws Exception {
    TestProjects.project(projectDir, "plugins: {browser: {network: {mode: strict}}}\n");
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      // Policy first: refused before any browser is asked.
      ToolResult refused =
          call(
              host,
              "agent",
              "browser_upload",
              Map.of(
                  "observation_id", "o-1", "element_ref", "e1", "attachment_refs", List.of("a")));
      assertTrue(refused.text().contains("code=BROWSER_POLICY_DENIED"), refused.text());
      assertTrue(refused.text().contains("plugins.browser.uploads.enabled"), refused.text());
      assertTrue(refused.text().contains("the default in strict network mode"), refused.text());
    }
    TestProjects.project(
        projectDir,
        """
        plugins:
          browser:
            network: {mode: allowlist, allowCidrs: ["127.0.0.1/32"]}
            uploads: {maxBytes: 100}
        """);
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      call(host, "agent", "browser_open", Map.of("url", url("/form")));
      String ref = screenshot(host, "agent");
      ToolResult page = call(host, "agent", "browser_observe", Map.of());
      Map<String, Object> input = target(page, "Receipt");
      input.put("attachment_refs", List.of(ref));
      ToolResult capped = call(host, "agent", "browser_upload", input);
      assertTrue(capped.text().contains("code=BROWSER_POLICY_DENIED"), capped.text());
      assertTrue(capped.text().contains("plugins.browser.uploads.maxBytes"), capped.text());
    }
  }
}
