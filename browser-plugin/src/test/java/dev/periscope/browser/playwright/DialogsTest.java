package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.runtime.CredentialChannel;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Dialogs the model answers: one an action opens stays open, is reported in that action's result,
 * holds every other action off with {@code BROWSER_DIALOG_PENDING}, and is accepted, answered or
 * dismissed with {@code browser_dialog}; one left unanswered is dismissed after {@code
 * dialogTimeoutMs}. Real Chromium, pages on 127.0.0.1.
 */
class DialogsTest {
  static final long DIALOG_TIMEOUT_MS = 1_000;
  static LocalBrowser browser;
  static final Map<String, String> PAGES =
      Map.of(
          "/confirm",
          """
          <!doctype html><html><head><title>Invoice</title></head><body>
          <button onclick="document.getElementById('r').textContent =
            confirm('Delete the invoice?') ? 'deleted' : 'kept'">Delete</button>
          <p id="r">untouched</p></body></html>""",
          "/prompt",
          """
          <!doctype html><html><head><title>Greeting</title></head><body>
          <button onclick="document.getElementById('r').textContent =
            'Hello, ' + prompt('Your name?', 'guest')">Greet</button>
          <p id="r">silent</p></body></html>""",
          "/chain",
          """
          <!doctype html><html><head><title>Chain</title></head><body>
          <button onclick="const sure = confirm('Send it?'); alert(sure ? 'Sent' : 'Not sent');
            document.getElementById('r').textContent = 'done ' + sure">Send</button>
          <p id="r">waiting</p></body></html>""",
          "/leave",
          """
          <!doctype html><html><head><title>Draft</title></head><body>
          <input aria-label="Note">
          <script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });</script>
          </body></html>""",
          "/keys",
          """
          <!doctype html><html><head><title>Keys</title></head><body>
          <input aria-label="Code" onkeydown="if (event.key === 'x') alert('No x here')"
            oninput="document.getElementById('v').textContent = 'value ' + this.value">
          <p id="v">value</p></body></html>""",
          "/elsewhere",
          "<!doctype html><html><head><title>Elsewhere</title></head><body>left</body></html>");

  @BeforeAll
  static void start() throws Exception {
    browser =
        new LocalBrowser(
            PAGES,
            Map.of(),
            CredentialChannel.none(),
            LocalBrowser.withLoopback(Map.of("dialogTimeoutMs", (int) DIALOG_TIMEOUT_MS)));
  }

  @AfterAll
  static void stop() {
    browser.close();
  }

  static ToolResult call(String agent, String tool, Map<String, Object> args) {
    return browser.call(agent, tool, args);
  }

  static ToolResult open(String agent, String path) {
    ToolResult r = call(agent, "browser_open", Map.of("url", browser.url(path)));
    assertFalse(r.isError(), r.text());
    return r;
  }

  static String text(ToolResult r) {
    return (String) LocalBrowser.observation(r).get("text");
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> dialog(ToolResult r) {
    return (Map<String, Object>) LocalBrowser.observation(r).get("dialog");
  }

  static ToolResult answer(String agent, boolean accept, String promptText) {
    Map<String, Object> args = new HashMap<>();
    args.put("accept", accept);
    if (promptText != null) {
      args.put("prompt_text", promptText);
    }
    ToolResult r = call(agent, "browser_dialog", args);
    assertFalse(r.isError(), r.text());
    return r;
  }

  @Test
  void aConfirmAnActionOpenedWaitsHoldsOtherActionsOffAndIsAcceptedOrDismissed() {
    ToolResult page = open("confirm", "/confirm");
    ToolResult clicked = call("confirm", "browser_click", LocalBrowser.target(page, "Delete"));
    assertFalse(clicked.isError(), clicked.text());
    assertEquals(
        Map.of("type", "confirm", "message", "Delete the invoice?", "default_prompt", ""),
        dialog(clicked),
        clicked.text());
    assertTrue(clicked.text().contains("Dialog open (confirm): \"Delete the invoice?\""));

    ToolResult again = call("confirm", "browser_click", LocalBrowser.target(page, "Delete"));
    assertTrue(again.isError(), again.text());
    ToolResult reload = call("confirm", "browser_reload", Map.of());
    assertTrue(reload.text().contains("code=BROWSER_DIALOG_PENDING"), reload.text());
    assertTrue(reload.text().contains("Delete the invoice?"), reload.text());
    assertTrue(reload.text().contains("browser_dialog"), reload.text());
    ToolResult shot = call("confirm", "browser_screenshot", Map.of());
    assertTrue(shot.text().contains("code=BROWSER_DIALOG_PENDING"), shot.text());
    ToolResult looked = call("confirm", "browser_observe", Map.of());
    assertEquals("confirm", dialog(looked).get("type"), looked.text());

    ToolResult accepted = answer("confirm", true, null);
    assertNull(dialog(accepted), accepted.text());
    assertTrue(text(accepted).contains("deleted"), accepted.text());
    @SuppressWarnings("unchecked")
    var transition = (Map<String, Object>) accepted.structured().get("transition");
    assertEquals(
        Map.of("kind", "dialog", "accept", true), transition.get("action"), transition.toString());

    ToolResult second = call("confirm", "browser_click", LocalBrowser.target(accepted, "Delete"));
    assertEquals("confirm", dialog(second).get("type"), second.text());
    ToolResult dismissed = answer("confirm", false, null);
    assertTrue(text(dismissed).contains("kept"), dismissed.text());
  }

  @Test
  void aPromptIsAnsweredWithTheModelsTextOrWithTheTextItOffers() {
    ToolResult page = open("prompt", "/prompt");
    ToolResult clicked = call("prompt", "browser_click", LocalBrowser.target(page, "Greet"));
    assertEquals(
        Map.of("type", "prompt", "message", "Your name?", "default_prompt", "guest"),
        dialog(clicked),
        clicked.text());
    ToolResult named = answer("prompt", true, "Ada");
    assertTrue(text(named).contains("Hello, Ada"), named.text());
    @SuppressWarnings("unchecked")
    var action =
        (Map<String, Object>)
            ((Map<String, Object>) named.structured().get("transition")).get("action");
    assertEquals("[REDACTED]", action.get("prompt_text"), action.toString());

    call("prompt", "browser_click", LocalBrowser.target(named, "Greet"));
    ToolResult offered = answer("prompt", true, null);
    assertTrue(text(offered).contains("Hello, guest"), offered.text());
  }

  @Test
  void aDialogTheAnswerLeadsToWaitsInItsTurn() {
    ToolResult page = open("chain", "/chain");
    ToolResult clicked = call("chain", "browser_click", LocalBrowser.target(page, "Send"));
    assertEquals("Send it?", dialog(clicked).get("message"), clicked.text());
    ToolResult next = answer("chain", true, null);
    assertEquals(Map.of("type", "alert", "message", "Sent", "default_prompt", ""), dialog(next));
    ToolResult done = answer("chain", true, null);
    assertTrue(text(done).contains("done true"), done.text());
  }

  @Test
  void aDialogAKeyOpensStopsTheTypingThereAndTheKeysAfterItAreNotTyped() {
    ToolResult page = open("keys", "/keys");
    Map<String, Object> code = new HashMap<>(LocalBrowser.target(page, "Code"));
    code.put("text", "abxcd");
    ToolResult typed = call("keys", "browser_type", code);
    assertFalse(typed.isError(), typed.text());
    assertEquals("No x here", dialog(typed).get("message"), typed.text());
    ToolResult answered = answer("keys", true, null);
    assertTrue(text(answered).contains("value abx"), answered.text());
    assertFalse(text(answered).contains("abxc"), answered.text());
  }

  @Test
  void aDialogLeftUnansweredIsDismissedAfterTheTimeoutAndReported() throws Exception {
    ToolResult page = open("late", "/confirm");
    ToolResult clicked = call("late", "browser_click", LocalBrowser.target(page, "Delete"));
    assertEquals("confirm", dialog(clicked).get("type"), clicked.text());
    long deadline = System.nanoTime() + 10_000_000_000L;
    ToolResult looked;
    do {
      Thread.sleep(200);
      looked = call("late", "browser_observe", Map.of("mode", "document"));
    } while (dialog(looked) != null && System.nanoTime() < deadline);
    assertNull(dialog(looked), looked.text());
    assertTrue(text(looked).contains("kept"), looked.text());
    assertTrue(
        looked
            .text()
            .contains(
                "dismissed a confirm dialog: \"Delete the invoice?\", left unanswered for 1 s"),
        looked.text());
    ToolResult late = call("late", "browser_dialog", Map.of("accept", true));
    assertTrue(late.text().contains("code=BROWSER_POLICY_DENIED"), late.text());
    assertTrue(late.text().contains("no dialog open"), late.text());
  }

  @Test
  void aLeavePageDialogLetsTheNavigationGoOnWhenAcceptedAndKeepsThePageWhenDismissed() {
    ToolResult page = open("leave", "/leave");
    // A page may ask before it is left only once a person used it.
    Map<String, Object> note = new HashMap<>(LocalBrowser.target(page, "Note"));
    note.put("text", "draft");
    ToolResult typed = call("leave", "browser_type", note);
    assertFalse(typed.isError(), typed.text());

    ToolResult leaving = call("leave", "browser_open", Map.of("url", browser.url("/elsewhere")));
    assertFalse(leaving.isError(), leaving.text());
    assertEquals("beforeunload", dialog(leaving).get("type"), leaving.text());
    ToolResult stayed = answer("leave", false, null);
    assertEquals(browser.url("/leave"), LocalBrowser.observation(stayed).get("url"), stayed.text());

    ToolResult again = call("leave", "browser_open", Map.of("url", browser.url("/elsewhere")));
    assertEquals("beforeunload", dialog(again).get("type"), again.text());
    ToolResult left = answer("leave", true, null);
    assertEquals(browser.url("/elsewhere"), LocalBrowser.observation(left).get("url"), left.text());
    assertTrue(text(left).contains("left"), left.text());

    // Reloading asks too; accepted, the page reloads on its own URL.
    ToolResult back = open("leave", "/leave");
    Map<String, Object> again2 = new HashMap<>(LocalBrowser.target(back, "Note"));
    again2.put("text", "more");
    call("leave", "browser_type", again2);
    ToolResult reload = call("leave", "browser_reload", Map.of());
    assertEquals("beforeunload", dialog(reload).get("type"), reload.text());
    ToolResult reloaded = answer("leave", true, null);
    assertNull(dialog(reloaded), reloaded.text());
    assertEquals(browser.url("/leave"), LocalBrowser.observation(reloaded).get("url"));
  }
}
