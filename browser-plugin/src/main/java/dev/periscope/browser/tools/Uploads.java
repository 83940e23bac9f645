package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.host.Attachment;
import dev.periscope.api.host.AttachmentService;
import dev.periscope.api.tool.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code browser_upload} may send: attachments of the host's store that the calling agent
 * session made (or that belong to no session), read by ref, never a path; refused unless the
 * project lets uploads through, and past the project's byte cap. Policy first: nothing reaches the
 * browser before these checks pass.
 */
final class Uploads {
  private static final Map<String, String> EXTENSIONS =
      Map.of(
          "image/png", ".png",
          "image/jpeg", ".jpg",
          "image/gif", ".gif",
          "image/webp", ".webp",
          "application/pdf", ".pdf",
          "text/plain", ".txt",
          "text/csv", ".csv",
          "application/json", ".json");

  private final ToolSettings.Uploads policy;
  private final Optional<AttachmentService> attachments;

  Uploads(ToolSettings.Uploads policy, Optional<AttachmentService> attachments) {
    this.policy = policy;
    this.attachments = attachments;
  }

  BrowserAction<BrowserAction.Done> action(ToolCall call, Arguments args) {
    if (!policy.enabled()) {
      throw new BrowserException(
          ErrorCode.BROWSER_POLICY_DENIED,
          "uploads are off for this project: plugins.browser.uploads.enabled is false"
              + (policy.configured() ? "" : " (the default in strict network mode)")
              + "; set it to true to let the agent upload attachments");
    }
    if (attachments.isEmpty()) {
      throw new BrowserException(
          ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED,
          "this host has no attachment store, so there is nothing to upload");
    }
    List<BrowserAction.Upload.UploadFile> files = new ArrayList<>();
    long total = 0;
    for (String ref : args.strings("attachment_refs")) {
      Attachment a =
          attachments
              .get()
              .open(ref)
              .filter(
                  found ->
                      found.agentSessionId() == null
                          || found.agentSessionId().equals(call.agentSessionId()))
              .orElseThrow(
                  () ->
                      new BrowserException(
                          ErrorCode.BROWSER_INVALID_ARGUMENT,
                          "/attachment_refs: there is no attachment \""
                              + ref
                              + "\" of this agent session"));
      total += a.content().length;
      if (total > policy.maxBytes()) {
        throw new BrowserException(
            ErrorCode.BROWSER_POLICY_DENIED,
            "the attachments take more than "
                + policy.maxBytes()
                + " bytes, the most one upload may take (plugins.browser.uploads.maxBytes)");
      }
      files.add(
          new BrowserAction.Upload.UploadFile(
              ref, ref + EXTENSIONS.getOrDefault(a.mimeType(), ".bin"), a.mimeType(), a.content()));
    }
    return new BrowserAction.Upload(
        args.string("observation_id"), args.string("element_ref"), files);
  }
}
