package dev.periscope.browser.playwright;

import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.Frame;
import com.microsoft.playwright.JSHandle;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ElementState;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Extraction;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.spi.ProviderChallenge;
import dev.periscope.api.browser.spi.ProviderElement;
import dev.periscope.api.browser.spi.ProviderObservation;
import dev.periscope.api.browser.spi.ProviderRecord;
import dev.periscope.api.browser.spi.ProviderTextLine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The scripts that run inside Chromium, and what crosses back. Each is an ES module of
 * src/main/js/page/ with what it imports, bundled at build time (src/main/js/build.js) into
 * scripts/&lt;name&gt;.js among these classes: an expression whose value is the module's default
 * export, a function Playwright calls with the evaluation's argument. observe.js (rank, group, cut;
 * or find the very node a target names) with names.js (accessible names; hints.js in it), labels.js
 * (each element's labels, found once per script run), cover.js (what covers an element), shadow.js
 * (walking shadow roots), seen.js (what a person can see), text.js (the page's text as a person
 * reads it, and which lines are listed elements' and records'), records.js (repeated structures),
 * state.js (what a control shows), icons.js (what an icon depicts) and challenge.js (bot walls) in
 * it, settle.js (waiting for transitions) before it in observe-settled.js, extract.js (fixed
 * traversals, with shadow.js), guards.js (installed in every document). Call on the lane's thread.
 */
final class PageScripts {
  private static final String OBSERVE = script("observe");

  /**
   * The observation of the main document, after the page's running transitions have ended (within
   * {@code request.settleMs}; settle.js).
   */
  private static final String OBSERVE_SETTLED = script("observe-settled");

  /** The longest an observation waits for the page's transitions and animations to end. */
  static final int SETTLE_MS = 1000;

  /**
   * How much of a field's value crosses to Java: what an observation shows and the slack the
   * runtime's redaction needs to see whole copies of a secret before it cuts.
   */
  static final int VALUE_CHARS = 200 + 256;

  /**
   * Resolves an element as observe.js does and looks at it as {@link HitTest} does
   * (ready-point.js). Made on first use.
   */
  private static final class ReadyPoint {
    static final String SCRIPT = script("ready-point");
  }

  private static final String EXTRACT = script("extract");
  private static final String GUARDS = script("guards");

  /**
   * The elements with interactive semantics; observe.js adds the elements without any that a person
   * can click (a handler, a tabindex, a pointer cursor of their own), of kind {@code clickable
   * <tag>}.
   */
  static final String CANDIDATES =
      "a[href],button,input:not([type=hidden]),select,textarea,summary,[role=button],"
          + "[role=link],[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=switch],[role=option],"
          + "[role=menuitemcheckbox],[role=menuitemradio],[role=treeitem],[role=combobox],"
          + "[role=textbox],[role=searchbox],[role=slider],[role=spinbutton],[role=listbox],"
          + "[contenteditable=\"\"],[contenteditable=true]";

  /** The kind's prefix of an element that only a handler, tabindex or pointer makes clickable. */
  static final String CLICKABLE = "clickable ";

  private PageScripts() {}

  /** guards.js for one environment, its registry under {@code registryKey}. */
  static String guards(String registryKey, boolean downloadsAllowed) {
    return guards(registryKey, downloadsAllowed, true);
  }

  /**
   * The same; {@code windowsAllowed} false: a page opens no new window, even on the agent's input.
   */
  static String guards(String registryKey, boolean downloadsAllowed, boolean windowsAllowed) {
    // The settings are data, a JSON object guards.js is called with: none of them becomes script.
    com.google.gson.JsonObject settings = new com.google.gson.JsonObject();
    settings.addProperty("key", registryKey);
    settings.addProperty("downloads", downloadsAllowed);
    settings.addProperty("windows", windowsAllowed);
    return "(" + GUARDS + ")(" + settings + ");";
  }

  /**
   * Observes the page and the frames inside it (up to {@value #MAX_FRAMES}; their elements only, in
   * section {@code frame <origin>}), ranked by tier with the page's elements first within a tier.
   * The frames observed are added to {@code frames}: a frame element's target names its frame by
   * its index there. What the main document's guards recorded since they were last read is taken in
   * the same script and handed to {@code guardsRead} ({@code {blocked, navigated}}, as {@link
   * PageGuards} reads it).
   */
  static ProviderObservation observe(
      Page page,
      String registryKey,
      ObservationBudget budget,
      List<Frame> frames,
      java.util.function.Consumer<Map<String, Object>> guardsRead) {
    Map<String, Object> raw = observeIn(page.mainFrame(), registryKey, budget, true);
    @SuppressWarnings("unchecked")
    Map<String, Object> guards = (Map<String, Object>) raw.get("guards");
    guardsRead.accept(guards);
    List<ProviderElement> elements = new ArrayList<>(elements(raw, null, null));
    List<ProviderRecord> records = new ArrayList<>(records(raw, ""));
    int total = ((Number) raw.get("totalElements")).intValue();
    boolean truncated = Boolean.TRUE.equals(raw.get("elementsTruncated"));
    @SuppressWarnings("unchecked")
    Map<String, Object> challenge = (Map<String, Object>) raw.get("challenge");
    String challengeFrame = null;
    for (Frame frame : documentFrames(page)) {
      if (frame == page.mainFrame() || frames.size() >= MAX_FRAMES) {
        continue;
      }
      Map<String, Object> inFrame;
      try {
        inFrame =
            observeIn(
                frame,
                registryKey,
                new ObservationBudget(
                    0, Math.min(budget.maxElements(), MAX_FRAME_ELEMENTS), budget.tiers()),
                false);
      } catch (PlaywrightException gone) {
        continue; // navigated or detached while observed: it is not on the page as it stands
      }
      frames.add(frame);
      String prefix = "f" + (frames.size() - 1) + FRAME_SEPARATOR;
      if (challenge != null && frame.url().equals(challenge.get("frameSrc"))) {
        challengeFrame = prefix;
      }
      elements.addAll(
          elements(inFrame, prefix, "frame " + CredentialFields.originOfUrl(frame.url())));
      records.addAll(records(inFrame, prefix));
      total += ((Number) inFrame.get("totalElements")).intValue();
      truncated |= Boolean.TRUE.equals(inFrame.get("elementsTruncated"));
    }
    elements.sort(java.util.Comparator.comparingInt(ProviderElement::tier));
    if (elements.size() > budget.maxElements()) {
      elements = new ArrayList<>(elements.subList(0, budget.maxElements()));
      truncated = true;
    }
    java.util.Set<String> keys = new java.util.HashSet<>();
    elements.forEach(e -> keys.add(e.groupKey()));
    records.removeIf(r -> !keys.contains(r.key()));
    return new ProviderObservation(
            str(raw.get("url")),
            str(raw.get("title")),
            str(raw.get("text")),
            ((Number) raw.get("totalTextChars")).intValue(),
            elements,
            total,
            truncated)
        .withChallenge(challenge == null ? null : challenge(challenge, challengeFrame, elements))
        .withRecords(records, textLines(raw));
  }

  /** The records of one document's observation, their keys and targets as the page lists them. */
  @SuppressWarnings("unchecked")
  private static List<ProviderRecord> records(Map<String, Object> raw, String framePrefix) {
    List<ProviderRecord> list = new ArrayList<>();
    for (Map<String, Object> r : (List<Map<String, Object>>) raw.get("records")) {
      Object titleTarget = r.get("titleTarget");
      list.add(
          new ProviderRecord(
              framePrefix + str(r.get("key")),
              str(r.get("title")),
              str(r.get("detail")),
              titleTarget == null ? null : framePrefix + titleTarget));
    }
    return list;
  }

  /** The lines of the main document's text that are a listed element's or record's own. */
  @SuppressWarnings("unchecked")
  private static List<ProviderTextLine> textLines(Map<String, Object> raw) {
    List<ProviderTextLine> list = new ArrayList<>();
    for (List<Object> line : (List<List<Object>>) raw.get("lines")) {
      String target = str(line.get(1));
      String record = str(line.get(2));
      list.add(
          new ProviderTextLine(
              ((Number) line.get(0)).intValue(),
              target.isEmpty() ? null : target,
              record.isEmpty() ? null : record));
    }
    return list;
  }

  /**
   * The challenge challenge.js found, with the elements of the frame it runs in (observed with the
   * frame prefix {@code framePrefix}, null when not observed) as its own: the first is its element
   * when the page itself lists none, and all are gated.
   */
  @SuppressWarnings("unchecked")
  private static ProviderChallenge challenge(
      Map<String, Object> found, String framePrefix, List<ProviderElement> elements) {
    List<String> gated = new ArrayList<>((List<String>) found.get("gated"));
    String target = (String) found.get("target");
    if (framePrefix != null) {
      for (ProviderElement e : elements) {
        if (e.target().startsWith(framePrefix)) {
          gated.add(e.target());
          if (target == null) {
            target = e.target();
          }
        }
      }
    }
    java.util.Set<String> listed = new java.util.HashSet<>();
    elements.forEach(e -> listed.add(e.target()));
    gated.retainAll(listed);
    return new ProviderChallenge(
        str(found.get("kind")),
        str(found.get("vendor")),
        str(found.get("frame")),
        target != null && listed.contains(target) ? target : null,
        gated,
        Boolean.TRUE.equals(found.get("wholePage")));
  }

  static final int MAX_FRAMES = 8;

  /**
   * The page's frames, main frame first, that have a document a script can run in. Left out: a
   * frame that is detached, and one with no document of its own yet, because its navigation was
   * blocked before it committed (a web page's frame pointing at {@code file:}) or still waits for
   * its first response. A script sent to such a frame waits for a document that may never come,
   * holding the call (an observation, a checkpoint) until its deadline and costing the environment.
   */
  static List<Frame> documentFrames(Page page) {
    return page.frames().stream().filter(f -> !f.isDetached() && !f.url().isEmpty()).toList();
  }

  /**
   * So that frames (advertising, widgets) cannot crowd the page's own elements out of an
   * observation.
   */
  static final int MAX_FRAME_ELEMENTS = 40;

  private static final String FRAME_SEPARATOR = "|";

  @SuppressWarnings("unchecked")
  private static Map<String, Object> observeIn(
      Frame frame, String registryKey, ObservationBudget budget, boolean drainGuards) {
    return (Map<String, Object>)
        frame.evaluate(
            drainGuards ? OBSERVE_SETTLED : OBSERVE,
            Map.of(
                "drainGuards",
                drainGuards,
                "maxTextChars",
                budget.maxTextChars(),
                "maxElements",
                budget.maxElements(),
                "tiers",
                List.copyOf(budget.tiers()),
                "key",
                registryKey,
                "selector",
                CANDIDATES,
                "maxValueChars",
                VALUE_CHARS,
                "settleMs",
                SETTLE_MS));
  }

  @SuppressWarnings("unchecked")
  private static List<ProviderElement> elements(
      Map<String, Object> raw, String framePrefix, String frameSection) {
    List<ProviderElement> list = new ArrayList<>();
    for (Map<String, Object> e : (List<Map<String, Object>>) raw.get("elements")) {
      ProviderElement el = element(e);
      list.add(
          framePrefix == null
              ? el
              : el.inFrame(
                  framePrefix + el.target(),
                  frameSection,
                  el.groupKey() == null ? null : framePrefix + el.groupKey()));
    }
    return list;
  }

  /**
   * The frame a target lives in (the page's main frame, or one of the observed frames) and its
   * in-frame target.
   */
  record Located(Frame frame, String target) {}

  static Located locate(Page page, List<Frame> frames, String target, ProviderElement element) {
    int separator = target.indexOf(FRAME_SEPARATOR);
    if (separator < 0) {
      return new Located(page.mainFrame(), target);
    }
    int index = Integer.parseInt(target.substring(1, separator));
    Frame frame = index < frames.size() ? frames.get(index) : null;
    if (frame == null || frame.isDetached()) {
      throw stale(page, element);
    }
    return new Located(frame, target.substring(separator + 1));
  }

  private static BrowserException stale(Page page, ProviderElement element) {
    return BrowserException.of(
            ErrorCode.BROWSER_STALE_REFERENCE,
            "the element \""
                + element.name()
                + "\" changed or is gone since it was observed; observe the page again")
        .withUrl(page.url());
  }

  /**
   * The very node the element's target names, still with its fingerprint, or {@code
   * BROWSER_STALE_REFERENCE}.
   */
  static ElementHandle resolve(
      Page page, List<Frame> frames, String registryKey, ProviderElement element) {
    Located at = locate(page, frames, element.target(), element);
    JSHandle handle;
    try {
      handle = at.frame().evaluateHandle(OBSERVE, resolving(at, element, registryKey));
    } catch (PlaywrightException gone) {
      if (at.frame() == page.mainFrame()) {
        throw gone;
      }
      throw stale(page, element);
    }
    ElementHandle target = handle.asElement();
    if (target == null) {
      handle.dispose();
      throw stale(page, element);
    }
    return target;
  }

  /**
   * For the pointer, in one script and with no handle to the element: an element of the main
   * document resolved as {@link #resolve} does, then brought into view and looked at as {@link
   * HitTest} does; the point (in the viewport, CSS pixels) to press when the element is ready for
   * the pointer there. Empty when it is not, or is in a frame: the caller then takes the element's
   * handle and the full checks. {@code BROWSER_STALE_REFERENCE} when it is gone.
   */
  static java.util.Optional<HitTest.Point> readyPoint(
      Page page, List<Frame> frames, String registryKey, ProviderElement element) {
    Located at = locate(page, frames, element.target(), element);
    if (at.frame() != page.mainFrame()) {
      return java.util.Optional.empty();
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> found =
        (Map<String, Object>) page.evaluate(ReadyPoint.SCRIPT, resolving(at, element, registryKey));
    if (Boolean.TRUE.equals(found.get("stale"))) {
      throw stale(page, element);
    }
    if (!(found.get("x") instanceof Number x) || !(found.get("y") instanceof Number y)) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(new HitTest.Point(x.doubleValue(), y.doubleValue()));
  }

  private static Map<String, Object> resolving(
      Located at, ProviderElement element, String registryKey) {
    return Map.of(
        "resolve",
        at.target(),
        "fingerprint",
        element.fingerprint(),
        "clickable",
        element.kind().startsWith(CLICKABLE),
        "key",
        registryKey,
        "selector",
        CANDIDATES);
  }

  static Extraction extract(
      Page page,
      List<Frame> frames,
      String registryKey,
      String kind,
      ProviderElement region,
      int limit,
      int maxFieldChars) {
    Map<String, Object> arg =
        new HashMap<>(
            Map.of("kind", kind, "limit", limit, "maxChars", maxFieldChars, "key", registryKey));
    Frame frame = page.mainFrame();
    if (region != null) {
      Located at = locate(page, frames, region.target(), region);
      frame = at.frame();
      arg.put("region", at.target());
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> raw = (Map<String, Object>) frame.evaluate(EXTRACT, arg);
    if (Boolean.TRUE.equals(raw.get("stale"))) {
      throw BrowserException.of(
              ErrorCode.BROWSER_STALE_REFERENCE,
              "the region \""
                  + region.name()
                  + "\" changed or is gone since it was observed; observe the page again")
          .withUrl(page.url());
    }
    @SuppressWarnings("unchecked")
    List<Map<String, String>> rows = (List<Map<String, String>>) raw.get("rows");
    @SuppressWarnings("unchecked")
    List<String> columns = (List<String>) raw.get("columns");
    return new Extraction(
        kind, page.url(), null, columns, rows, ((Number) raw.get("total")).intValue());
  }

  private static ProviderElement element(Map<String, Object> e) {
    return new ProviderElement(
        str(e.get("target")),
        str(e.get("fingerprint")),
        str(e.get("kind")),
        str(e.get("role")),
        str(e.get("name")),
        Boolean.TRUE.equals(e.get("disabled")),
        e.get("inputType") == null ? null : str(e.get("inputType")),
        ((Number) e.get("tier")).intValue(),
        Boolean.TRUE.equals(e.get("pagination")),
        str(e.get("section")),
        e.get("groupKey") == null ? null : str(e.get("groupKey")),
        e.get("groupLabel") == null ? null : str(e.get("groupLabel")),
        str(e.get("hint")),
        Boolean.TRUE.equals(e.get("covered")),
        state(e.get("state")),
        str(e.get("icon")),
        Boolean.TRUE.equals(e.get("ariaHidden")));
  }

  @SuppressWarnings("unchecked")
  private static ElementState state(Object raw) {
    if (!(raw instanceof Map<?, ?> m)) {
      return ElementState.NONE;
    }
    Object value = m.get("value");
    return new ElementState(
        (List<String>) m.get("flags"),
        value == null ? null : value.toString(),
        m.get("valueChars") instanceof Number n ? n.intValue() : 0,
        (List<String>) m.get("options"),
        m.get("message") == null ? "" : m.get("message").toString());
  }

  private static String str(Object o) {
    return o == null ? "" : o.toString();
  }

  /**
   * The script bundled from src/main/js/page/&lt;name&gt;.js: an expression for its default export,
   * a function of the evaluation's argument.
   */
  static String script(String name) {
    String path = "scripts/" + name + ".js";
    try (InputStream in = PageScripts.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(
            "missing resource " + path + " (built by src/main/js/build.js)");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
