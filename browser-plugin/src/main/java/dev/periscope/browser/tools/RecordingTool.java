package dev.periscope.browser.tools;

import dev.periscope.api.ProjectContext;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.host.Attachment;
import dev.periscope.api.host.AttachmentService;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolDescriptor;
import dev.periscope.api.tool.ToolHints;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.store.RuntimeRecords;
import dev.periscope.browser.store.SqliteRecordings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code browser_recording} of the {@code browser-operator} skill: everything a report of a session
 * shows, for a host to render (the harness's {@code harness report}): each browser session of the
 * agent session with its audit trail (actions and journal events: faults, recoveries, challenges,
 * handoffs), and its recording: each frame's transition, redacted arguments, observation text, page
 * events, downloads and image (from the attachment store, as base64), the failures its calls ended
 * with, and what its budget dropped. What it returns was redacted when it was recorded.
 */
public final class RecordingTool {
  private final RuntimeRecords records;
  private final SqliteRecordings recordings;
  private final Optional<AttachmentService> attachments;
  private final ProjectContext project;

  public RecordingTool(
      RuntimeRecords records,
      SqliteRecordings recordings,
      Optional<AttachmentService> attachments,
      ProjectContext project) {
    this.records = records;
    this.recordings = recordings;
    this.attachments = attachments;
    this.project = project;
  }

  public Tool tool() {
    ToolDescriptor descriptor =
        new ToolDescriptor(
            "browser_recording",
            "Read an agent session's (or a browser session's) recording for a report: its audit trail,"
                + " and after each action the frame (image, redacted arguments, observation text, page"
                + " events, downloads), the failures its calls ended with, and what its budget dropped.",
            Param.schema(
                List.of(
                    Param.string("session", "An agent session id or a browser session id.")
                        .asRequired(),
                    Param.string("project", "The project of the agent session (its directory)."))),
            new ToolHints(true, false, true, false));
    return new Tool() {
      @Override
      public ToolDescriptor descriptor() {
        return descriptor;
      }

      @Override
      public ToolResult call(ToolCall call) {
        try {
          return read(call);
        } catch (IllegalStateException e) {
          return ToolResult.error(e.getMessage());
        }
      }
    };
  }

  private ToolResult read(ToolCall call) {
    Arguments args = new Arguments(call.arguments());
    String session = args.string("session");
    Optional<String> filter = Optional.ofNullable(args.optionalString("project")).map(p -> real(p));
    List<BrowserSessionId> sessions = records.browserSessionsOf(session, filter);
    if (sessions.isEmpty()) {
      return ToolResult.error(
          "no agent or browser session \"" + session + "\" in profile " + project.profile());
    }
    StringBuilder text = new StringBuilder();
    List<Map<String, Object>> out = new ArrayList<>();
    for (BrowserSessionId id : sessions) {
      List<RuntimeRecords.TransitionRow> trail = records.transitions(id);
      Optional<SqliteRecordings.Recording> recording = recordings.recording(id);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("browser_session", id.value());
      m.put("transitions", trail.stream().map(RecordingTool::row).toList());
      m.put("recorded", recording.isPresent());
      if (recording.isPresent()) {
        SqliteRecordings.Recording r = recording.get();
        m.put("frames", r.frames().stream().map(this::frame).toList());
        m.put("failures", r.failures().stream().map(RecordingTool::failure).toList());
        m.put("dropped_frames", r.droppedFrames());
        m.put("dropped_bytes", r.droppedBytes());
        m.put("bytes", r.bytes());
        text.append(
            String.format(
                "Browser session %s: %d transition(s), %d frame(s) recorded (%d bytes)%s%n",
                id,
                trail.size(),
                r.frames().size(),
                r.bytes(),
                r.droppedFrames() == 0
                    ? ""
                    : ", "
                        + r.droppedFrames()
                        + " earlier frame(s) dropped over the recording's budget"));
      } else {
        text.append(
            String.format(
                "Browser session %s: %d transition(s), no recording%n", id, trail.size()));
      }
      out.add(m);
    }
    return ToolResult.text(text.toString(), Map.of("sessions", out));
  }

  private static Map<String, Object> row(RuntimeRecords.TransitionRow t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", t.id());
    m.put("started_at", t.startedAt());
    m.put("generation", t.generation());
    m.put("action", t.action());
    m.put("outcome", t.outcome());
    m.put("duration_ms", t.durationMs());
    m.put("environment_ms", t.environmentMs());
    m.put("before_url", t.beforeUrl());
    m.put("after_url", t.afterUrl());
    m.put("error", t.errorCode());
    m.put("cause", t.cause());
    m.put("placement", t.placement());
    return m;
  }

  private Map<String, Object> frame(SqliteRecordings.KeptFrame f) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("transition", f.transitionId());
    m.put("at", f.at());
    m.put("action", f.action());
    m.put("outcome", f.outcome());
    m.put("error", f.errorCode());
    m.put("duration_ms", f.durationMs());
    m.put("url", f.url());
    m.put("title", f.title());
    m.put("observation", f.observation());
    m.put("page_events", f.pageEvents());
    m.put("downloads", f.files());
    Optional<Attachment> image =
        f.imageRef() == null ? Optional.empty() : attachments.flatMap(a -> a.open(f.imageRef()));
    if (image.isPresent()) {
      m.put("image_mime_type", image.get().mimeType());
      m.put("image_base64", Base64.getEncoder().encodeToString(image.get().content()));
    } else {
      m.put(
          "image_missing",
          f.imageRef() == null
              ? "no image was taken (the page could not be photographed, or no attachment store)"
              : "the attachment store no longer has it");
    }
    return m;
  }

  private static Map<String, Object> failure(SqliteRecordings.Failure f) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("at", f.at());
    m.put("transition", f.transitionId());
    m.put("text", f.text());
    return m;
  }

  private static String real(String project) {
    try {
      return Path.of(project).toRealPath().toString();
    } catch (IOException | java.nio.file.InvalidPathException e) {
      return project;
    }
  }
}
