package dev.periscope.api.browser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.browser.BrowserAction.Handler;
import dev.periscope.api.browser.BrowserAction.PageAction;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every action has its row in the action table, and each page action reaches its own handler. */
class ActionTableTest {
  /** Every record of the sealed hierarchy, found from BrowserAction's permitted subtypes. */
  private static List<Class<?>> records(Class<?> type, List<Class<?>> into) {
    if (type.isRecord()) {
      into.add(type);
    }
    Class<?>[] permitted = type.getPermittedSubclasses();
    for (Class<?> sub : permitted == null ? new Class<?>[0] : permitted) {
      records(sub, into);
    }
    return into;
  }

  @Test
  void everyActionRecordHasARowAndEveryPageActionNamesItsHandlerMethod() {
    List<Class<?>> records = records(BrowserAction.class, new ArrayList<>());
    assertEquals(19, records.size(), records.toString());
    for (Class<?> record : records) {
      assertTrue(ActionTable.hasRow(record), record + " has no row");
      boolean done = DonePageAction.class.isAssignableFrom(record);
      assertEquals(done, ActionTable.performed(record), record + ": performed by a handler");
    }
  }

  @Test
  void eachPageActionIsPerformedByTheHandlerMethodOfItsOwnName() {
    Map<String, PageAction<?>> actions = new LinkedHashMap<>();
    actions.put("navigate", new BrowserAction.Navigate("https://example.test/"));
    actions.put("click", new BrowserAction.Click("o1", "e1"));
    actions.put("drag", new BrowserAction.Drag("o1", "e1", "e2"));
    actions.put("type", new BrowserAction.Type("o1", "e1", "abc", 0));
    actions.put("hover", new BrowserAction.Hover("o1", "e1"));
    actions.put("clear", new BrowserAction.Clear("o1", "e1"));
    actions.put("fill", new BrowserAction.Fill("o1", "e1", "v"));
    actions.put("press", new BrowserAction.Press("o1", "e1", "Enter"));
    actions.put("select", new BrowserAction.Select("o1", "e1", List.of("a")));
    actions.put("check", new BrowserAction.Check("o1", "e1", true));
    actions.put("scroll", new BrowserAction.Scroll(BrowserAction.Scroll.To.TOP, 0, null, null));
    actions.put(
        "waitFor", new BrowserAction.Wait(BrowserAction.Wait.Until.LOAD, null, null, 1_000));
    actions.put("history", new BrowserAction.History(BrowserAction.History.Move.BACK));
    actions.put("tabs", new BrowserAction.Tabs(BrowserAction.Tabs.Move.LIST, null, null));
    actions.put("answerDialog", new BrowserAction.AnswerDialog(true, null));
    actions.put("upload", new BrowserAction.Upload("o1", "e1", List.of()));
    actions.put(
        "pointAt",
        new BrowserAction.PointAt(
            BrowserAction.PointAt.Gesture.CLICK, 1, 1, 0, 0, 0, 0, null, null));
    List<String> called = new ArrayList<>();
    Handler handler =
        (Handler)
            Proxy.newProxyInstance(
                Handler.class.getClassLoader(),
                new Class<?>[] {Handler.class},
                (proxy, method, args) -> {
                  called.add(method.getName());
                  return method.getReturnType() == List.class ? List.of() : null;
                });
    for (var e : actions.entrySet()) {
      called.clear();
      Object result = e.getValue().accept(handler, null, null);
      assertEquals(List.of(e.getKey()), called, e.getValue().kind());
      assertEquals(e.getKey().equals("tabs") ? List.of() : BrowserAction.Done.DONE, result);
    }
    assertEquals(
        records(PageAction.class, new ArrayList<>()).size(), actions.size(), "a sample each");
  }
}
