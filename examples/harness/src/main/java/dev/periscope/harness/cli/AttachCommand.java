package dev.periscope.harness.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.periscope.api.host.AttachmentMetadata;
import dev.periscope.api.host.AttachmentRef;
import dev.periscope.api.host.AttachmentRejectedException;
import dev.periscope.attachments.FileAttachmentService;
import dev.periscope.harness.HarnessException;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import dev.periscope.harness.profile.ProjectConfig;
import dev.periscope.harness.profile.Yaml;
import dev.periscope.storage.SqliteStorageDomains;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code harness attach FILE... --profile P [--session S] [--project DIR]}: the user's own files
 * put into the profile's attachment store (where screenshots go), so that {@code browser_upload}
 * can send them by ref. With {@code --session} each is that agent session's; without, it belongs to
 * no session, and any session may upload it. Every file is checked and read before any is stored: a
 * missing file, a directory, an unreadable file or one over the upload limit ({@code
 * plugins.browser.uploads.maxBytes} of the project given, else its default, 10 MiB) stores none.
 */
@Command(
    name = "attach",
    description = "Store local files as attachments, for browser_upload to send by ref.")
public final class AttachCommand implements Callable<Integer> {
  /** The browser plugin's default {@code uploads.maxBytes}. */
  static final long DEFAULT_MAX_BYTES = 10L * 1024 * 1024;

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

  @Option(names = "--profile", required = true)
  String profile;

  @Option(
      names = "--session",
      description =
          "the agent session the attachments belong to (only it may upload them); without it,"
              + " any session may")
  String session;

  @Option(
      names = "--project",
      description =
          "the project whose plugins.browser.uploads.maxBytes limits each file (default: 10 MiB)")
  Path project;

  @Parameters(paramLabel = "FILE", arity = "1..*", description = "the files to store")
  List<Path> files;

  private record Read(Path file, String name, String mediaType, byte[] content) {}

  @Override
  public Integer call() {
    HarnessHome.Profile p = Main.home().profile(profile);
    long maxBytes = maxBytes(p);
    List<Read> read = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (Path file : files) {
      try {
        read.add(read(file, maxBytes));
      } catch (HarnessException e) {
        problems.add(e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new HarnessException(
          files.size() == 1
              ? problems.get(0)
              : "nothing was stored:\n - " + String.join("\n - ", problems));
    }
    try (SqliteStorageDomains storage = new SqliteStorageDomains(p.data())) {
      FileAttachmentService attachments =
          new FileAttachmentService(
              p.attachments(),
              storage.open("attachments", FileAttachmentService.MIGRATIONS),
              Math.max(maxBytes, FileAttachmentService.DEFAULT_MAX_BYTES));
      // All or none: a file the store refuses or fails to keep takes back the ones before it.
      List<AttachmentRef> stored = new ArrayList<>();
      for (Read r : read) {
        try {
          stored.add(
              attachments.saveFile(
                  r.content(), r.mediaType(), new AttachmentMetadata(r.name(), session)));
        } catch (RuntimeException e) {
          stored.forEach(done -> attachments.delete(done.ref()));
          throw new HarnessException(
              (read.size() == 1 ? "" : "nothing was stored: ")
                  + r.file()
                  + ": "
                  + (e instanceof AttachmentRejectedException
                      ? e.getMessage()
                      : "the attachment store failed to keep it (" + e.getMessage() + ")"));
        }
      }
      for (int i = 0; i < stored.size(); i++) {
        AttachmentRef ref = stored.get(i);
        System.out.println(
            ref.ref()
                + "  "
                + ref.mimeType()
                + "  "
                + ref.bytes()
                + " bytes  "
                + read.get(i).name());
      }
    }
    return 0;
  }

  /** The project's {@code plugins.browser.uploads.maxBytes}, or the default without a project. */
  private long maxBytes(HarnessHome.Profile p) {
    if (project == null) {
      return DEFAULT_MAX_BYTES;
    }
    Map<String, JsonNode> schemas = new LinkedHashMap<>();
    PluginInstaller.installed(p)
        .forEach((id, m) -> schemas.put(id, Yaml.JSON.valueToTree(m.configSchema())));
    JsonNode browser = ProjectConfig.load(project, schemas).pluginSections().get("browser");
    JsonNode configured = browser == null ? null : browser.path("uploads").path("maxBytes");
    if (configured == null) {
      return DEFAULT_MAX_BYTES;
    }
    return configured.canConvertToLong() ? configured.asLong() : DEFAULT_MAX_BYTES;
  }

  /** A regular, readable file of at most {@code maxBytes}, read whole; or why not. */
  private static Read read(Path file, long maxBytes) {
    if (Files.isDirectory(file)) {
      throw new HarnessException(file + " is a directory; name files");
    }
    if (!Files.exists(file)) {
      throw new HarnessException(file + " does not exist");
    }
    if (!Files.isRegularFile(file)) {
      throw new HarnessException(file + " is not a regular file");
    }
    byte[] content;
    try (InputStream in = Files.newInputStream(file)) {
      content = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
    } catch (NoSuchFileException e) {
      throw new HarnessException(file + " does not exist");
    } catch (AccessDeniedException e) {
      throw new HarnessException(file + " cannot be read: permission denied");
    } catch (IOException e) {
      throw new HarnessException(file + " cannot be read: " + e.getMessage());
    }
    if (content.length > maxBytes) {
      throw new HarnessException(
          file
              + " is over the upload limit of "
              + maxBytes
              + " bytes (plugins.browser.uploads.maxBytes)");
    }
    String name = file.getFileName().toString();
    return new Read(file, name, mediaType(name), content);
  }

  static String mediaType(String fileName) {
    int dot = fileName.lastIndexOf('.');
    return dot < 0
        ? "application/octet-stream"
        : MEDIA_TYPES.getOrDefault(
            fileName.substring(dot + 1).toLowerCase(Locale.ROOT), "application/octet-stream");
  }
}
