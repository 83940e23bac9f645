package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserAction;
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
import dev.periscope.browser.runtime.CredentialChannel;
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

  /** What an observation retains for paging: the runtime's text limit and a bound on the elements. */
  static final int RETAINED_TEXT_CHARS = 60_000;
  static final int RETAINED_ELEMENTS = 500;

  private final AgentBindings bindings;
  private final Pager pager = new Pager();
  private final BrowserSettings settings;
  private final Optional<AttachmentService> attachments;

  private final BrowserRuntime runtime;
  private final SessionDirectory sessions;
  private final CredentialChannel credentials;

  /** Tools whose agent sessions map to browser sessions through {@code sessions}. */
  public BrowserTools(BrowserRuntime runtime, SessionDirectory sessions, BrowserSettings settings,
      Optional<AttachmentService> attachments) {
    this.runtime = runtime;
    this.sessions = sessions;
    this.credentials = runtime instanceof dev.periscope.browser.runtime.DefaultBrowserRuntime r ? r.credentials()
        : CredentialChannel.none();
    this.bindings = new AgentBindings(runtime, sessions::sessionFor, settings);
    this.settings = settings;
    this.attachments = attachments;
  }

  public List<Tool> tools() {
    List<Tool> all = new java.util.ArrayList<>(pageTools());
    all.addAll(new ExtractionTools(bindings, this::failed).tools());
    if (credentials.available()) {
      all.add(fillCredentialTool());
    }
    return all;
  }

  /** Offered only when the project has a credential source; the model names a reference, never a value. */
  private Tool fillCredentialTool() {
    List<String> refs = credentials.references();
    String known = refs.isEmpty() ? "" : " Configured references: " + String.join(", ", refs) + ".";
    return new BrowserTool(new ToolDescriptor(CredentialChannel.TOOL,
        "Fill a password or other secret into a field named by its ref, by the credential's reference: the value"
            + " is never shown to you. The user may be asked to approve; a credential bound to origins is refused"
            + " on any other." + known,
        schema(TARGET + ", \"credential_ref\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 200,"
            + " \"description\": \"The credential's reference, such as github or shop.password.\"}",
            "\"observation_id\", \"element_ref\", \"credential_ref\""),
        new ToolHints(false, true, true, true)), this::fillCredential, this::failed);
  }

  private ToolResult fillCredential(ToolCall call) {
    String ref = BrowserTool.requiredString(call.arguments(), "credential_ref");
    View view = defaultView();
    Transition t = bindings.run(call.agentSessionId(), call.cancellation(),
        lease -> lease.act(new BrowserAction.FillCredential(BrowserTool.requiredString(call.arguments(), "observation_id"),
            BrowserTool.requiredString(call.arguments(), "element_ref"), ref), view.retained(), call.cancellation()));
    ToolResult r = transition(call, view, t);
    return new ToolResult(List.of(new Content.Text("Filled " + t.action().get("filled_chars") + " characters of"
        + " credential \"" + ref + "\"\n" + r.text())), false, r.structured());
  }

  private List<Tool> pageTools() {
    String observation = """
        "mode": {"enum": ["summary", "interactive", "document"], "description": "summary: controls, navigation and record titles with a text lead (default); interactive: every element, no text; document: text with controls and navigation."},
        "max_text_chars": {"type": "integer", "minimum": 1, "maximum": %d, "description": "Most page text on one page of the observation."},
        "max_elements": {"type": "integer", "minimum": 1, "maximum": %d, "description": "Most elements on one page of the observation."}"""
        .formatted(settings.observeMaxTextChars(), settings.observeMaxElements());
    return List.of(
        new BrowserTool(new ToolDescriptor("browser_open",
            "Open an http(s) URL in this agent's browser page and return the observation of the loaded page.",
            schema("\"url\": {\"type\": \"string\", \"minLength\": 1, \"description\": \"Absolute http or https URL.\"},"
                + observation, "\"url\""),
            new ToolHints(false, false, false, true)), this::open, this::failed),
        new BrowserTool(new ToolDescriptor("browser_observe",
            "Observe the current page: its URL, title, ranked interactive elements with refs, records, and text."
                + " Older refs go stale.",
            schema(observation, ""), new ToolHints(true, false, true, true)), this::observe, this::failed),
        new BrowserTool(new ToolDescriptor("browser_observe_next",
            "Read the next page of the latest observation. Its refs stay valid.",
            schema("\"continuation\": {\"type\": \"string\", \"pattern\": \"^cursor-[0-9]+$\", \"description\": \"The continuation the previous page named.\"}",
                "\"continuation\""), new ToolHints(true, false, true, false)), this::observeNext, this::failed),
        new BrowserTool(new ToolDescriptor("browser_click",
            "Click an element named by its ref in the latest observation, then observe the result.",
            schema(TARGET, "\"observation_id\", \"element_ref\""),
            new ToolHints(false, true, false, true)), this::click, this::failed),
        new BrowserTool(new ToolDescriptor("browser_fill",
            "Type a value into a field named by its ref in the latest observation, replacing its content. Never for"
                + " passwords: use browser_fill_credential.",
            schema(TARGET + ", \"value\": {\"type\": \"string\", \"maxLength\": 100000}",
                "\"observation_id\", \"element_ref\", \"value\""),
            new ToolHints(false, true, true, true)), this::fill, this::failed),
        new BrowserTool(new ToolDescriptor("browser_press",
            "Press one key on an element, or on whatever has focus when no element is named.",
            schema("\"key\": {\"enum\": " + jsonList(BrowserAction.KEYS) + "}," + OPTIONAL_TARGET, "\"key\""),
            new ToolHints(false, true, false, true)), call -> act(call, new BrowserAction.Press(
                optionalString(call, "observation_id"), optionalString(call, "element_ref"),
                BrowserTool.requiredString(call.arguments(), "key"))), this::failed),
        new BrowserTool(new ToolDescriptor("browser_select",
            "Choose options of a select element by their values or labels.",
            schema(TARGET + ", \"values\": {\"type\": \"array\", \"minItems\": 1, \"maxItems\": 100, \"items\": {\"type\": \"string\"}}",
                "\"observation_id\", \"element_ref\", \"values\""),
            new ToolHints(false, true, true, true)), call -> act(call, new BrowserAction.Select(
                BrowserTool.requiredString(call.arguments(), "observation_id"),
                BrowserTool.requiredString(call.arguments(), "element_ref"), strings(call, "values"))), this::failed),
        new BrowserTool(new ToolDescriptor("browser_check",
            "Check or uncheck a checkbox, radio button or switch.",
            schema(TARGET + ", \"checked\": {\"type\": \"boolean\"}", "\"observation_id\", \"element_ref\", \"checked\""),
            new ToolHints(false, true, true, true)), call -> act(call, new BrowserAction.Check(
                BrowserTool.requiredString(call.arguments(), "observation_id"),
                BrowserTool.requiredString(call.arguments(), "element_ref"), requiredBoolean(call, "checked"))),
            this::failed),
        new BrowserTool(new ToolDescriptor("browser_scroll",
            "Scroll the page up or down by viewports, to its top or bottom, or an element into view.",
            schema("\"to\": {\"enum\": [\"up\", \"down\", \"top\", \"bottom\", \"element\"]},"
                + " \"pages\": {\"type\": \"number\", \"exclusiveMinimum\": 0, \"maximum\": 20, \"description\": \"Viewports to scroll up or down (default 1).\"},"
                + OPTIONAL_TARGET, "\"to\""),
            new ToolHints(false, false, false, true)), call -> act(call, new BrowserAction.Scroll(
                BrowserTool.requiredString(call.arguments(), "to"), number(call, "pages", 1),
                optionalString(call, "observation_id"), optionalString(call, "element_ref"))), this::failed),
        new BrowserTool(new ToolDescriptor("browser_wait",
            "Wait for the page to load or go network-idle, or for an element to become visible or hidden.",
            schema("\"until\": {\"enum\": [\"load\", \"network-idle\", \"element-visible\", \"element-hidden\"]},"
                + " \"timeout_ms\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 120000},"
                + OPTIONAL_TARGET, "\"until\""),
            new ToolHints(true, false, true, true)), call -> act(call, new BrowserAction.Wait(
                BrowserTool.requiredString(call.arguments(), "until"), optionalString(call, "observation_id"),
                optionalString(call, "element_ref"), BrowserTool.optionalInt(call.arguments(), "timeout_ms", 1, 120_000)
                    .orElse(settings.actionTimeoutMs()))), this::failed),
        history("browser_back", "Go back one page in this page's history.", "back"),
        history("browser_forward", "Go forward one page in this page's history.", "forward"),
        history("browser_reload", "Reload the page.", "reload"),
        new BrowserTool(new ToolDescriptor("browser_screenshot",
            "Take a PNG screenshot of the page (the viewport, or the full page) and store it as an attachment.",
            schema("\"full_page\": {\"type\": \"boolean\", \"description\": \"Capture the whole page, not only the viewport.\"}", ""),
            new ToolHints(true, false, true, true)), this::screenshot, this::failed),
        new BrowserTool(new ToolDescriptor("browser_reset",
            "Discard this agent's browser session: close the browser, delete its saved state (cookies, local"
                + " storage, logins); the next browser call starts fresh.",
            schema("", ""), new ToolHints(false, true, true, false)), this::reset, this::failed));
  }

  /** Closes the agent's lease (its last checkpoint with it), deletes the checkpoint, maps a new session. */
  private ToolResult reset(ToolCall call) {
    String agent = call.agentSessionId();
    dev.periscope.api.browser.BrowserSessionId old = sessions.sessionFor(agent);
    bindings.end(agent);
    pager.forget(agent);
    runtime.discard(old);
    dev.periscope.api.browser.BrowserSessionId fresh = sessions.replace(agent);
    return ToolResult.text("Browser session " + old.value() + " was closed and its saved state deleted. The next"
        + " browser call starts fresh, as browser session " + fresh.value() + ".",
        Map.of("discarded_session", old.value(), "session", fresh.value()));
  }

  private static final String OPTIONAL_TARGET = """
       "observation_id": {"type": "string", "minLength": 1, "description": "The id of the latest observation, with element_ref."},
       "element_ref": {"type": "string", "pattern": "^e[0-9]+$", "description": "A ref from that observation."}""";

  private BrowserTool history(String name, String description, String move) {
    return new BrowserTool(new ToolDescriptor(name, description, schema("", ""),
        new ToolHints(false, false, false, true)), call -> act(call, new BrowserAction.History(move)), this::failed);
  }

  /** Runs an action and shows the transition with the first page of the observation after it. */
  private ToolResult act(ToolCall call, BrowserAction action) {
    View view = defaultView();
    return transition(call, view, bindings.run(call.agentSessionId(), call.cancellation(),
        lease -> lease.act(action, view.retained(), call.cancellation())));
  }

  private static String optionalString(ToolCall call, String field) {
    Object v = call.arguments().get(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof String s) || s.isEmpty()) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, "/" + field + ": a non-empty string is expected");
    }
    return s;
  }

  private static boolean requiredBoolean(ToolCall call, String field) {
    if (!(call.arguments().get(field) instanceof Boolean b)) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, "/" + field + ": a boolean is required");
    }
    return b;
  }

  private static double number(ToolCall call, String field, double fallback) {
    Object v = call.arguments().get(field);
    if (v == null) {
      return fallback;
    }
    if (!(v instanceof Number n)) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, "/" + field + ": a number is required");
    }
    return n.doubleValue();
  }

  private static List<String> strings(ToolCall call, String field) {
    if (!(call.arguments().get(field) instanceof List<?> list) || list.stream().anyMatch(v -> !(v instanceof String))) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, "/" + field + ": a list of strings is required");
    }
    return list.stream().map(String.class::cast).toList();
  }

  private static String jsonList(List<String> values) {
    return values.stream().map(v -> "\"" + v + "\"").collect(java.util.stream.Collectors.joining(", ", "[", "]"));
  }

  /** A failure that leaves the refs invalid also closes the session's page cursor. */
  private void failed(ToolCall call, BrowserException e) {
    boolean pagerItself = e.code() == ErrorCode.BROWSER_OBSERVATION_SUPERSEDED
        || e.code() == ErrorCode.BROWSER_CONTINUATION_EXHAUSTED;
    if (!e.observationValid() && !pagerItself) {
      pager.clear(call.agentSessionId());
    }
  }

  /** Releases what an ended agent session holds. */
  public void agentSessionEnded(String agentSessionId) {
    pager.forget(agentSessionId);
    bindings.end(agentSessionId);
  }

  private ToolResult open(ToolCall call) {
    String url = BrowserTool.requiredString(call.arguments(), "url");
    View view = view(call);
    return transition(call, view, bindings.run(call.agentSessionId(), call.cancellation(),
        lease -> lease.navigate(url, view.retained(), call.cancellation())));
  }

  private ToolResult observe(ToolCall call) {
    View view = view(call);
    Observation o = bindings.run(call.agentSessionId(), call.cancellation(),
        lease -> lease.observe(view.retained(), call.cancellation()));
    ObservationPage page = pager.first(call.agentSessionId(), o, view.mode(), view.textChars(), view.elements());
    return ToolResult.text(Rendering.text(page), Map.of("observation", Rendering.json(page)));
  }

  private ToolResult observeNext(ToolCall call) {
    String continuation = BrowserTool.requiredString(call.arguments(), "continuation");
    ObservationPage page = pager.next(call.agentSessionId(), continuation);
    return ToolResult.text(Rendering.text(page), Map.of("observation", Rendering.json(page)));
  }

  private ToolResult click(ToolCall call) {
    String observationId = BrowserTool.requiredString(call.arguments(), "observation_id");
    String ref = BrowserTool.requiredString(call.arguments(), "element_ref");
    View view = defaultView();
    return transition(call, view, bindings.run(call.agentSessionId(), call.cancellation(),
        lease -> lease.click(observationId, ref, view.retained(), call.cancellation())));
  }

  private ToolResult fill(ToolCall call) {
    String observationId = BrowserTool.requiredString(call.arguments(), "observation_id");
    String ref = BrowserTool.requiredString(call.arguments(), "element_ref");
    Object value = call.arguments().get("value");
    if (!(value instanceof String text)) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, "/value: a string is required");
    }
    View view = defaultView();
    Transition t = bindings.run(call.agentSessionId(), call.cancellation(),
        lease -> lease.fill(observationId, ref, text, view.retained(), call.cancellation()));
    ToolResult r = transition(call, view, t);
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

  private ToolResult transition(ToolCall call, View view, Transition t) {
    ObservationPage page = pager.first(call.agentSessionId(), t.after(), view.mode(), view.textChars(), view.elements());
    Map<String, Object> structured = new LinkedHashMap<>();
    structured.put("transition", Rendering.json(t));
    structured.put("observation", Rendering.json(page));
    return ToolResult.text(Rendering.text(t, page), structured);
  }

  /**
   * How an observation is taken and shown: the mode, the page sizes (the call's, else the mode's, never above the
   * configured caps), and what the browser retains for paging (the text and the elements of the mode's tiers, up
   * to the retained bounds).
   */
  record View(Mode mode, int textChars, int elements) {
    ObservationBudget retained() {
      return new ObservationBudget(RETAINED_TEXT_CHARS, RETAINED_ELEMENTS, mode.tiers);
    }
  }

  private View view(ToolCall call) {
    Object requested = call.arguments().get("mode");
    Mode mode = Mode.valueOf(settings.observeMode().toUpperCase());
    if (requested != null) {
      mode = java.util.Arrays.stream(Mode.values()).filter(m -> m.id().equals(requested)).findFirst()
          .orElseThrow(() -> new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT,
              "/mode: one of summary, interactive, document is required (found " + requested + ")"));
    }
    int text = BrowserTool.optionalInt(call.arguments(), "max_text_chars", 1, settings.observeMaxTextChars())
        .orElse(Math.min(mode.textChars, settings.observeMaxTextChars()));
    int elements = BrowserTool.optionalInt(call.arguments(), "max_elements", 1, settings.observeMaxElements())
        .orElse(Math.min(mode.elements, settings.observeMaxElements()));
    return new View(mode, text, elements);
  }

  private View defaultView() {
    Mode mode = Mode.valueOf(settings.observeMode().toUpperCase());
    return new View(mode, Math.min(mode.textChars, settings.observeMaxTextChars()),
        Math.min(mode.elements, settings.observeMaxElements()));
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
