package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading a Selenium Grid 4 {@code /status}, as the Grid 4.47.0 here answers it, and bad ones. */
class GridStatusTest {
  static final String STATUS =
      """
      {"value": {"ready": true, "message": "Selenium Grid ready.", "nodes": [
        {"availability": "UP", "uri": "http://10.0.0.5:5555", "slots": [
          {"session": null, "stereotype": {"browserName": "chrome"}},
          {"session": {"sessionId": "s-ours", "uri": "http://10.0.0.5:5555",
             "capabilities": {"browserName": "chrome", "periscope:lane": "host-a/1"}},
           "stereotype": {"browserName": "chrome"}},
          {"session": null, "stereotype": {"browserName": "firefox"}}]},
        {"availability": "DRAINING", "uri": "http://10.0.0.6:5555", "slots": [
          {"session": {"sessionId": "s-other", "capabilities": {"browserName": "chrome"}},
           "stereotype": {"browserName": "chrome"}}]}]}}
      """;

  @Test
  void countsChromeSlotsOfNodesThatAreUpAndFindsEachLanesSessions() throws IOException {
    GridStatus s = GridStatus.parse(STATUS);
    assertEquals("ready, 1 node(s) up, 1 of 2 Chrome slot(s) free", s.describe());
    assertEquals(
        List.of(new GridStatus.Session("s-ours", "http://10.0.0.5:5555", "host-a/1")),
        s.ofLane("host-a/1"));
    assertEquals(List.of(), s.ofLane("host-b/1"));
    assertEquals(2, s.sessions().size(), "a draining node's sessions are still there to end");
    assertEquals(java.util.Set.of("http://10.0.0.6:5555"), s.draining());
  }

  @Test
  void refusesWhatIsNotAGrid4Status() {
    for (String body :
        List.of(
            "",
            "not json",
            "[]",
            "{\"value\": {\"ready\": true}}",
            "{\"value\": {\"nodes\": 3}}",
            "{\"value\": {\"nodes\": [\"a node\"]}}",
            "{\"value\": {\"nodes\": [{\"availability\": \"UP\", \"slots\": [7]}]}}")) {
      IOException e = assertThrows(IOException.class, () -> GridStatus.parse(body), body);
      assertTrue(e.getMessage().startsWith("the Grid's /status"), e.getMessage());
    }
  }
}
