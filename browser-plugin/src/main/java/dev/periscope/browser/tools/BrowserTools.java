package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserEnvironment.ObservationBudget;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserRuntime;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.Screenshot;
import dev.periscope.api.browser.Transition;
import dev.periscope.api.host.AttachmentMetadata;
import dev.periscope.api.host.AttachmentRef;
import dev.periscope.api.host.AttachmentRejectedException;
import dev.periscope.api.host.AttachmentService;
import dev.periscope.api.tool.Content;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolDescriptor;
import dev.periscope.api.tool.ToolHints;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.store.AgentSessionStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The browser skill's tools, each bound to the calling agent session's lease. */
public final class BrowserTools implements AutoCloseable {
  public static final String SKILL = "browser";

  private static final String TARGET = """
      "observation_id": {"type": "string", "minLength": 1, "description": "The id of the latest observation."},
      "element_ref": {"type": "string", "pattern": "^e[0-9]+$", "description": "A ref from that observation, such as e3."}""";

  private final AgentBindings bindings;
  private final BrowserSettings settings;
  private final Optional<AttachmentService> attachments;

  public BrowserTools(BrowserRuntime runtime, AgentSessionStore sessions, BrowserSettings settings,
      Optional<AttachmentService> attachments) {
    this(runtime, sessions::browserSessionFor, settings, attachments);
  }

  /** Tools whose agent sessions map to browser sessions through {@code sessions}. */
  BrowserTools(BrowserRuntime runtime, java.util.function.Function<String, dev.periscope.api.browser.BrowserSessionId> sessions,
      BrowserSettings settings, Optional<AttachmentService> attachments) {
    this.bindings = new AgentBindings(runtime, sessions, settings);
    this.settings = settings;
    this.attachments = attachments;
  }

  public List<Tool> tools() {
    String budget = """
        "max_text_chars": {"type": "integer", "minimum": 1, "maximum": %d, "description": "Most page text to return."},
        "max_elements": {"type": "integer", "minimum": 1, "maximum": %d, "description": "Most elements to return."}"""
        .formatted(settings.observeMaxTextChars(), settings.observeMaxElements());
    return List.of(
        new BrowserTool(new ToolDescriptor("browser_open",
            "Open an http(s) URL in this agent's browser page and return the observation of the loaded page.",
            schema("\"url\": {\"type\": \"string\", \"minLength\": 1, \"description\": \"Absolute http or https URL.\"},"
                + budget, "\"url\""),
            new ToolHints(false, false, false, true)), this::open),
        new BrowserTool(new ToolDescriptor("browser_observe",
            "Observe the current page: its URL, title, ranked interactive elements with refs, and text. Older refs go stale.",
            schema(budget, ""), new ToolHints(true, false, true, true)), this::observe),
        new BrowserTool(new ToolDescriptor("browser_click",
            "Click an element named by its ref in the latest observation, then observe the result.",
            schema(TARGET + "," + budget, "\"observation_id\", \"element_ref\""),
            new ToolHints(false, true, false, true)), this::click),
        new BrowserTool(new ToolDescriptor("browser_fill",
            "Type a value into a field named by its ref in the latest observation, replacing its content. Never for"
                + " passwords: use browser_fill_credential.",
            schema(TARGET + ", \"value\": {\"type\": \"string\", \"maxLength\": 100000},"
                + budget, "\"observation_id\", \"element_ref\", \"value\""),
            new ToolHints(false, true, true, true)), this::fill),
        new BrowserTool(new ToolDescriptor("browser_screenshot",
            "Take a PNG screenshot of the page (the viewport, or the full page) and store it as an attachment.",
            schema("\"full_page\": {\"type\": \"boolean\", \"description\": \"Capture the whole page, not only the viewport.\"}", ""),
            new ToolHints(true, false, true, true)), this::screenshot));
  }

  /** Releases what an ended agent session holds. */
  public void agentSessionEnded(String agentSessionId) {
    bindings.end(agentSessionId);
  }

  private ToolResult open(ToolCall call) {
    String url = BrowserTool.requiredString(call.arguments(), "url");
    ObservationBudget budget = budget(call);
    return transition(bindings.run(call.agentSessionId(), call.cancellation(),
        lease -> lease.navigate(url, budget, call.cancellation())));
  }

  private ToolResult observe(ToolCall call) {
    ObservationBudget budget = budget(call);
    Observation o = bindings.run(call.agentSessionId(), call.cancellation(),
        lease -> lease.observe(budget, call.cancellation()));
    return ToolResult.text(Rendering.text(o), Map.of("observation", Rendering.json(o)));
  }

  private ToolResult click(ToolCall call) {
    String observationId = BrowserTool.requiredString(call.arguments(), "observation_id");
    String ref = BrowserTool.requiredString(call.arguments(), "element_ref");
    ObservationBudget budget = budget(call);
    return transition(bindings.run(call.agentSessionId(), call.cancellation(),
        lease -> lease.click(observationId, ref, budget, call.cancellation())));
  }

  private ToolResult fill(ToolCall call) {
    String observationId = BrowserTool.requiredString(call.arguments(), "observation_id");
    String ref = BrowserTool.requiredString(call.arguments(), "element_ref");
    Object value = call.arguments().get("value");
    if (!(value instanceof String text)) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, "/value: a string is required");
    }
    ObservationBudget budget = budget(call);
    Transition t = bindings.run(call.agentSessionId(), call.cancellation(),
        lease -> lease.fill(observationId, ref, text, budget, call.cancellation()));
    ToolResult r = transition(t);
    return new ToolResult(List.of(new Content.Text("Filled " + text.length() + " characters\n" + r.text())),
        false, r.structured());
  }

  private ToolResult screenshot(ToolCall call) {
    boolean fullPage = BrowserTool.optionalBoolean(call.arguments(), "full_page");
    Screenshot shot = bindings.run(call.agentSessionId(), call.cancellation(),
        lease -> lease.screenshot(fullPage, call.cancellation()));
    String heading = "Screenshot for " + shot.url() + " (observation " + shot.observationId() + ")";
    Map<String, Object> structured = new LinkedHashMap<>();
    structured.put("observation_id", shot.observationId());
    structured.put("url", shot.url());
    structured.put("title", shot.title());
    if (attachments.isEmpty()) {
      structured.put("attachment", null);
      return new ToolResult(List.of(new Content.Text(heading + "\nReturned inline: this host stores no attachments."),
          new Content.Image("image/png", shot.png())), false, structured);
    }
    AttachmentRef ref;
    try {
      ref = attachments.get().saveImage(shot.png(), "image/png",
          new AttachmentMetadata("browser-screenshot.png", call.agentSessionId()));
    } catch (AttachmentRejectedException e) {
      throw new BrowserException(ErrorCode.BROWSER_POLICY_DENIED, e.getMessage(), shot.url(), false, e);
    }
    Map<String, Object> attachment = new LinkedHashMap<>();
    attachment.put("ref", ref.ref());
    attachment.put("media_type", ref.mimeType());
    attachment.put("bytes", ref.bytes());
    attachment.put("width", ref.width());
    attachment.put("height", ref.height());
    structured.put("attachment", attachment);
    return new ToolResult(List.of(
        new Content.Text(heading + "\nStored as attachment " + ref.ref() + " (" + ref.width() + "x" + ref.height()
            + " PNG, " + ref.bytes() + " bytes)"),
        new Content.Image("image/png", shot.png()),
        new Content.AttachmentLink(ref.ref(), ref.mimeType())), false, structured);
  }

  private ToolResult transition(Transition t) {
    Map<String, Object> structured = new LinkedHashMap<>();
    structured.put("transition", Rendering.json(t));
    structured.put("observation", Rendering.json(t.after()));
    return ToolResult.text(Rendering.text(t), structured);
  }

  /** The call's budgets, checked against their bounds whether or not the host validated the schema. */
  private ObservationBudget budget(ToolCall call) {
    return new ObservationBudget(
        BrowserTool.optionalInt(call.arguments(), "max_text_chars", 1, settings.observeMaxTextChars())
            .orElse(settings.observeMaxTextChars()),
        BrowserTool.optionalInt(call.arguments(), "max_elements", 1, settings.observeMaxElements())
            .orElse(settings.observeMaxElements()));
  }

  private static String schema(String properties, String required) {
    return "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"type\": \"object\", \"properties\": {"
        + properties + "}, \"required\": [" + required + "], \"additionalProperties\": false}";
  }

  @Override
  public void close() {
    bindings.close();
  }
}
