package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.host.AttachmentMetadata;
import dev.periscope.api.host.AttachmentRef;
import dev.periscope.api.host.AttachmentRejectedException;
import dev.periscope.api.host.AttachmentService;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolDescriptor;
import dev.periscope.api.tool.ToolHints;
import dev.periscope.api.tool.ToolResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code browser_attach_file}: a file from one of the project's upload roots ({@code
 * plugins.browser.uploads.roots}) put into the host's attachment store, owned by the calling agent
 * session, so that {@code browser_upload} can send it. Offered only when the project names roots.
 * The path is the model's, so it is held to the roots: no {@code ..}, an absolute path only inside
 * a root, and the file's real path (links followed) must lie under the root's real path; a link out
 * of a root is refused, and so is a directory, a missing file, a file over {@code
 * uploads.maxBytes}, and any file while uploads are off. Nothing is stored unless every check
 * passed; no refusal shows where a link leads.
 */
final class AttachFile {
  static final String NAME = "browser_attach_file";

  /** Media types by file name extension; any other file is application/octet-stream. */
  private static final Map<String, String> MEDIA_TYPES =
      Map.ofEntries(
          Map.entry("png", "image/png"),
          Map.entry("jpg", "image/jpeg"),
          Map.entry("jpeg", "image/jpeg"),
          Map.entry("gif", "image/gif"),
          Map.entry("webp", "image/webp"),
          Map.entry("pdf", "application/pdf"),
          Map.entry("txt", "text/plain"),
          Map.entry("csv", "text/csv"),
          Map.entry("json", "application/json"));

  private final ToolSettings.Uploads policy;
  private final Optional<AttachmentService> attachments;

  AttachFile(ToolSettings.Uploads policy, Optional<AttachmentService> attachments) {
    this.policy = policy;
    this.attachments = attachments;
  }

  /** The tool, or none when the project names no upload roots: there is nothing it could read. */
  Optional<BrowserTool> tool(java.util.function.BiConsumer<ToolCall, BrowserException> onFailure) {
    if (policy.roots().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new BrowserTool(
            new ToolDescriptor(
                NAME,
                "Store a file of the user's (from the project's upload roots: "
                    + String.join(", ", policy.roots().stream().map(Path::toString).toList())
                    + ") as an attachment of this agent session, and get its ref for"
                    + " browser_upload. The path is relative to a root (the first root holding it),"
                    + " or absolute inside one; nothing outside the roots can be read.",
                Param.schema(
                    List.of(
                        Param.string(
                                "path",
                                "The file, relative to an upload root or absolute inside one.")
                            .with("maxLength", 4_096)
                            .asRequired())),
                new ToolHints(false, false, false, false)),
            this::call,
            onFailure));
  }

  /** The media type a file name says, or application/octet-stream. */
  static String mediaType(String fileName) {
    int dot = fileName.lastIndexOf('.');
    return dot < 0
        ? "application/octet-stream"
        : MEDIA_TYPES.getOrDefault(
            fileName.substring(dot + 1).toLowerCase(Locale.ROOT), "application/octet-stream");
  }

  private ToolResult call(ToolCall call) {
    String given = new Arguments(call.arguments()).string("path");
    if (!policy.enabled()) {
      throw new BrowserException(
          ErrorCode.BROWSER_POLICY_DENIED,
          "uploads are off for this project: plugins.browser.uploads.enabled is false"
              + (policy.configured() ? "" : " (the default in strict network mode)")
              + ", so no file is attached; set it to true to let the agent attach and upload"
              + " files");
    }
    if (attachments.isEmpty()) {
      throw new BrowserException(
          ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED,
          "this host has no attachment store, so " + given + " cannot be attached");
    }
    Path file = resolve(given);
    byte[] content = read(given, file);
    String name = file.getFileName().toString();
    String mediaType = mediaType(name);
    AttachmentRef ref;
    try {
      ref =
          attachments
              .get()
              .saveFile(content, mediaType, new AttachmentMetadata(name, call.agentSessionId()));
    } catch (AttachmentRejectedException e) {
      throw new BrowserException(
          ErrorCode.BROWSER_POLICY_DENIED, given + " was not attached: " + e.getMessage());
    }
    Map<String, Object> attachment = new LinkedHashMap<>();
    attachment.put("ref", ref.ref());
    attachment.put("name", name);
    attachment.put("media_type", ref.mimeType());
    attachment.put("bytes", ref.bytes());
    return ToolResult.text(
        "Attached "
            + given
            + " as "
            + ref.ref()
            + " ("
            + ref.mimeType()
            + ", "
            + ref.bytes()
            + " bytes). Upload it with browser_upload and attachment_refs ["
            + ref.ref()
            + "].",
        Map.of("attachment", attachment));
  }

  /**
   * The file the path names: its real path under a root's real path. A relative path is tried under
   * each root in order, the first root that holds an entry by that name wins.
   */
  private Path resolve(String given) {
    Path path;
    try {
      path = Path.of(given);
    } catch (InvalidPathException e) {
      throw invalid("/path: " + given + " is not a file path");
    }
    for (Path part : path) {
      if (part.toString().equals("..")) {
        throw new BrowserException(
            ErrorCode.BROWSER_POLICY_DENIED,
            "/path: "
                + given
                + " climbs out with '..'; name a file inside an upload root"
                + " (plugins.browser.uploads.roots)");
      }
    }
    if (path.isAbsolute()) {
      Path normal = path.normalize();
      for (Path root : policy.roots()) {
        if (normal.startsWith(root) || normal.startsWith(realOrSelf(root))) {
          return underRoot(given, root, normal);
        }
      }
      throw new BrowserException(
          ErrorCode.BROWSER_POLICY_DENIED,
          "/path: "
              + given
              + " is outside the upload roots (plugins.browser.uploads.roots); name a file inside"
              + " one of them");
    }
    for (Path root : policy.roots()) {
      Path candidate = root.resolve(path).normalize();
      if (Files.exists(candidate, LinkOption.NOFOLLOW_LINKS)) {
        return underRoot(given, root, candidate);
      }
    }
    throw invalid("/path: there is no file " + given + " in the upload roots");
  }

  /** A root's real path (its links resolved), or the root as configured when it is missing. */
  private static Path realOrSelf(Path root) {
    try {
      return root.toRealPath();
    } catch (IOException e) {
      return root;
    }
  }

  /** The real path of {@code candidate}, which must lie under the real path of {@code root}. */
  private Path underRoot(String given, Path root, Path candidate) {
    Path realRoot;
    try {
      realRoot = root.toRealPath();
    } catch (IOException e) {
      throw invalid(
          "/path: the upload root holding " + given + " does not exist or cannot be read");
    }
    Path real;
    try {
      real = candidate.toRealPath();
    } catch (NoSuchFileException e) {
      // A dangling link is as missing as no entry at all; where it points stays unsaid.
      throw invalid("/path: there is no file " + given + " in the upload roots");
    } catch (IOException e) {
      throw invalid("/path: " + given + " cannot be read");
    }
    if (!real.startsWith(realRoot)) {
      throw new BrowserException(
          ErrorCode.BROWSER_POLICY_DENIED,
          "/path: "
              + given
              + " leads outside its upload root through a link; only files inside the upload"
              + " roots (plugins.browser.uploads.roots) can be attached");
    }
    return real;
  }

  /**
   * The file's bytes: a regular file, read with no link followed at its last step, of at most
   * {@code uploads.maxBytes} (checked before reading and again while reading, should it grow).
   */
  private byte[] read(String given, Path real) {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      throw invalid("/path: there is no file " + given + " in the upload roots");
    }
    if (attributes.isDirectory()) {
      throw invalid("/path: " + given + " is a directory; name a file");
    }
    if (!attributes.isRegularFile()) {
      throw invalid("/path: " + given + " is not a regular file");
    }
    if (attributes.size() > policy.maxBytes()) {
      throw tooLarge(given, attributes.size() + " bytes");
    }
    try (InputStream in = Files.newInputStream(real, LinkOption.NOFOLLOW_LINKS)) {
      byte[] content = in.readNBytes((int) policy.maxBytes() + 1);
      if (content.length > policy.maxBytes()) {
        throw tooLarge(given, "more than " + policy.maxBytes() + " bytes");
      }
      return content;
    } catch (AccessDeniedException e) {
      throw invalid("/path: " + given + " cannot be read: permission denied");
    } catch (IOException e) {
      throw invalid("/path: " + given + " cannot be read");
    }
  }

  private BrowserException tooLarge(String given, String size) {
    return new BrowserException(
        ErrorCode.BROWSER_POLICY_DENIED,
        "/path: "
            + given
            + " is "
            + size
            + ", over the "
            + policy.maxBytes()
            + " bytes one upload may take (plugins.browser.uploads.maxBytes); nothing was"
            + " attached");
  }

  private static BrowserException invalid(String message) {
    return new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, message);
  }
}
