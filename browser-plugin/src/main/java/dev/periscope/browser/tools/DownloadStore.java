package dev.periscope.browser.tools;

import dev.periscope.api.browser.spi.DownloadedFile;
import dev.periscope.api.host.AttachmentMetadata;
import dev.periscope.api.host.AttachmentRef;
import dev.periscope.api.host.AttachmentRejectedException;
import dev.periscope.api.host.AttachmentService;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the files an action downloaded go: the host's attachment store, as this agent session's, up
 * to the session's budget ({@code plugins.browser.downloads.sessionBudgetBytes}). Each file is
 * reported by name, sniffed type, size and sha256, with its attachment ref, or with why it was not
 * kept; never opened or run.
 */
final class DownloadStore {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(DownloadStore.class);

  private final ToolSettings.Downloads policy;
  private final Optional<AttachmentService> attachments;
  private final Map<String, Long> spent = new ConcurrentHashMap<>();

  DownloadStore(ToolSettings.Downloads policy, Optional<AttachmentService> attachments) {
    this.policy = policy;
    this.attachments = attachments;
  }

  /** One file as the result reports it. */
  record Stored(Map<String, Object> json, String line) {}

  List<Stored> store(String agentSessionId, List<DownloadedFile> files) {
    List<Stored> out = new ArrayList<>();
    for (DownloadedFile f : files) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", f.name());
      m.put("mime_type", f.mimeType());
      m.put("bytes", f.content().length);
      m.put("sha256", f.sha256());
      String what =
          "\""
              + f.name()
              + "\" ("
              + f.mimeType()
              + ", "
              + f.content().length
              + " bytes, sha256 "
              + f.sha256()
              + ")";
      String refused = null;
      long total = spent.getOrDefault(agentSessionId, 0L) + f.content().length;
      if (attachments.isEmpty()) {
        refused = "this host has no attachment store";
      } else if (total > policy.sessionBudgetBytes()) {
        refused =
            "this agent session's downloads would take "
                + total
                + " bytes, more than plugins.browser.downloads.sessionBudgetBytes ("
                + policy.sessionBudgetBytes()
                + ")";
      } else {
        try {
          AttachmentRef ref =
              attachments
                  .get()
                  .saveFile(
                      f.content(), f.mimeType(), new AttachmentMetadata(f.name(), agentSessionId));
          spent.merge(agentSessionId, (long) f.content().length, Long::sum);
          m.put("attachment", ref.ref());
          out.add(new Stored(m, "Downloaded " + what + " as attachment " + ref.ref()));
          continue;
        } catch (AttachmentRejectedException e) {
          refused = e.getMessage();
        } catch (RuntimeException e) {
          // The action happened: a store that fails (a full disk, a database error) costs the
          // file, never the action's result, which the agent would otherwise take for a failure
          // and repeat.
          LOG.warn("the attachment store failed to keep a downloaded file", e);
          refused = "the host's attachment store failed to keep it (" + failure(e) + ")";
        }
      }
      m.put("refused", refused);
      out.add(new Stored(m, "Downloaded " + what + ", not kept: " + refused));
    }
    return out;
  }

  /** A failure in one line: its kind, and its message's first line, cut to 200 characters. */
  private static String failure(RuntimeException e) {
    String message = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
    if (message.length() > 200) {
      message = message.substring(0, 200) + "...";
    }
    return e.getClass().getSimpleName() + ": " + message;
  }
}
