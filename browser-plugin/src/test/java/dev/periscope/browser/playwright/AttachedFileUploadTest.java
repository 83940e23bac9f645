package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.runtime.CredentialChannel;
import dev.periscope.browser.tools.MemoryAttachments;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file of the user's, from the project's upload root, attached with browser_attach_file and
 * uploaded by its ref into a page's file input on real Chromium; another agent session cannot
 * upload it.
 */
class AttachedFileUploadTest {
  static final String PAGE =
      """
      <!doctype html><html><head><title>Upload</title></head><body>
      <input type="file" aria-label="Receipt"
        onchange="const f = this.files[0]; f.text().then(t =>
          document.getElementById('got').textContent = 'got ' + f.type + ' ' + t)">
      <p id="got">nothing</p></body></html>""";

  @TempDir Path root;

  @Test
  void aFileFromTheUploadRootIsAttachedAndUploadedByItsRef() throws Exception {
    Files.writeString(root.resolve("receipt.csv"), "total,42");
    MemoryAttachments store = new MemoryAttachments();
    try (LocalBrowser browser =
        new LocalBrowser(
            Map.of("/form", PAGE),
            Map.of(),
            CredentialChannel.none(),
            LocalBrowser.withLoopback(
                Map.of("uploads", Map.of("enabled", true, "roots", List.of(root.toString())))),
            Optional.of(store))) {
      ToolResult page = browser.open("agent", "/form", "interactive");
      ToolResult attached =
          browser.call("agent", "browser_attach_file", Map.of("path", "receipt.csv"));
      assertFalse(attached.isError(), attached.text());
      @SuppressWarnings("unchecked")
      String ref =
          (String) ((Map<String, Object>) attached.structured().get("attachment")).get("ref");

      ToolResult other =
          browser.call(
              "other",
              "browser_upload",
              withRefs(
                  LocalBrowser.target(browser.open("other", "/form", "interactive"), "Receipt"),
                  ref));
      assertTrue(other.text().contains("there is no attachment \"" + ref + "\""), other.text());

      ToolResult uploaded =
          browser.call(
              "agent", "browser_upload", withRefs(LocalBrowser.target(page, "Receipt"), ref));
      assertFalse(uploaded.isError(), uploaded.text());
      assertTrue(uploaded.text().contains("got text/csv total,42"), uploaded.text());
    }
  }

  private static Map<String, Object> withRefs(Map<String, Object> target, String ref) {
    Map<String, Object> args = new HashMap<>(target);
    args.put("attachment_refs", List.of(ref));
    return args;
  }
}
