package dev.periscope.harness.cli;

import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.HarnessException;
import dev.periscope.harness.profile.ProjectConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code harness report SESSION [--out FILE]}: one HTML file a person opens in a browser, with no
 * network: the session's timeline with the screenshot after each action ({@link ReportPage}). The
 * plugin's operator tool {@code browser_recording} gives the data; the file is written whole or not
 * at all (a temp file beside it, moved in place), so a failure leaves an earlier report as it was.
 */
@Command(
    name = "report",
    description =
        "Write one self-contained HTML report of an agent session (or a browser session): its"
            + " timeline, the screenshot after each action, failures, faults and recoveries,"
            + " challenges, handoffs, downloads and uploads, console and network; secrets redacted.")
final class ReportCommand implements Callable<Integer> {
  @Option(names = "--profile", required = true)
  String profile;

  @Parameters(index = "0", paramLabel = "SESSION", description = "an agent or browser session id")
  String session;

  @Option(names = "--project", description = "the project of the agent session")
  Path project;

  @Option(names = "--out", paramLabel = "FILE", description = "default: report-SESSION.html here")
  Path out;

  @Override
  public Integer call() {
    Path file =
        (out != null
                ? out
                : Path.of("report-" + session.replaceAll("[^A-Za-z0-9._-]", "_") + ".html"))
            .toAbsolutePath();
    Path dir = file.getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new HarnessException("--out " + file + ": its directory " + dir + " does not exist");
    }
    ToolResult result =
        Operations.run(
            Main.home(),
            profile,
            "browser_recording",
            project == null
                ? Map.of("session", session)
                : Map.of(
                    "session", session, "project", ProjectConfig.canonical(project).toString()));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> sessions =
        (List<Map<String, Object>>) result.structured().get("sessions");
    String html = ReportPage.render(session, profile, sessions);
    try {
      Path temp = Files.createTempFile(dir, ".report-", ".html.part");
      try {
        Files.writeString(temp, html, StandardCharsets.UTF_8);
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(temp);
      }
    } catch (IOException e) {
      throw new HarnessException("cannot write the report to " + file + ": " + e.getMessage());
    }
    for (Map<String, Object> s : sessions) {
      if (!Boolean.TRUE.equals(s.get("recorded"))) {
        System.err.println(
            "harness: browser session "
                + s.get("browser_session")
                + " of "
                + session
                + " has no recording (plugins.browser.recording.mode is off, or on-failure deleted"
                + " it when its browser closed with no failed action, or its checkpoint was"
                + " deleted): the report shows its transitions without screenshots");
      } else if (((Number) s.get("dropped_frames")).intValue() > 0) {
        System.err.println(
            "harness: the recording of browser session "
                + s.get("browser_session")
                + " went over its budget: its "
                + s.get("dropped_frames")
                + " oldest frame(s) were dropped (plugins.browser.recording.budgetBytes); their"
                + " transitions are in the report without screenshots");
      }
    }
    System.out.println("Wrote " + file);
    return 0;
  }
}
