package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserEnvironment.ObservationBudget;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserLease;
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

  private static final String TARGET_PROPERTIES = """
      "observation_id": {"type": "string", "minLength": 1, "description": "The id of the latest observation."},
      "element_ref": {"type": "string", "pattern": "^e[0-9]+$", "description": "A ref from that observation, such as e3."}""";

  private final AgentBindings bindings;
  private final BrowserSettings settings;
  private final Optional<AttachmentService> attachments;

  public BrowserTools(BrowserRuntime runtime, AgentSessionStore sessions, BrowserSettings settings,
      Optional<AttachmentService> attachments) {
    this.bindings = new AgentBindings(runtime, sessions, settings);
    this.settings = settings;
    this.attachments = attachments;
  }

  public List<Tool> tools() {
    return List.of(
        new BrowserTool(new ToolDescriptor("browser_open",
            "Open an http(s) URL in this agent's browser page and return the observation of the loaded page.",
            schema("\"url\": {\"type\": \"string\", \"minLength\": 1, \"description\": \"Absolute http or https URL.\"}",
                "\"url\""),
            new ToolHints(false, false, false, true)), this::open),
        new BrowserTool(new ToolDescriptor("browser_observe",
            "Observe the current page: its URL, title, ranked interactive elements with refs, and text. Older refs go stale.",
            schema("", ""), new ToolHints(true, false, true, true)), this::observe),
        new BrowserTool(new ToolDescriptor("browser_click",
            "Click an element named by its ref in the latest observation, then observe the result.",
            schema(TARGET_PROPERTIES, "\"observation_id\", \"element_ref\""),
            new ToolHints(false, true, false, true)), this::click),
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
    return transition(lease(call).navigate(url, budget()));
  }

  private ToolResult observe(ToolCall call) {
    Observation o = lease(call).observe(budget());
    return ToolResult.text(Rendering.text(o), Map.of("observation", Rendering.json(o)));
  }

  private ToolResult click(ToolCall call) {
    String observationId = BrowserTool.requiredString(call.arguments(), "observation_id");
    String ref = BrowserTool.requiredString(call.arguments(), "element_ref");
    return transition(lease(call).click(observationId, ref, budget()));
  }

  private ToolResult screenshot(ToolCall call) {
    boolean fullPage = BrowserTool.optionalBoolean(call.arguments(), "full_page");
    Screenshot shot = lease(call).screenshot(fullPage);
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

  private BrowserLease lease(ToolCall call) {
    return bindings.lease(call.agentSessionId(), call.cancellation());
  }

  private ObservationBudget budget() {
    return new ObservationBudget(settings.observeMaxTextChars(), settings.observeMaxElements());
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
