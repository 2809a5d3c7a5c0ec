import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A page in headless Chromium driven over the DevTools protocol, for the tests of the tool's
/// HTML pages at a phone's size with mobile emulation as at a laptop's: the browser is started
/// with `--remote-debugging-pipe` (commands written to its descriptor 3, replies and events read
/// from its descriptor 4, each a JSON message ended by a NUL byte), so no port is opened. It
/// records every network request the page makes and every console message, exception and log
/// entry, evaluates scripts in the page, sends input (wheel, clicks, touches) and takes
/// screenshots.
public final class DevToolsPage {
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    /// Device sizes the pages are checked at.
    public struct Device: Sendable {
        public var width: Int, height: Int, scale: Double, mobile: Bool
        public init(width: Int, height: Int, scale: Double, mobile: Bool) {
            self.width = width
            self.height = height
            self.scale = scale
            self.mobile = mobile
        }
        public static let laptop = Device(width: 1400, height: 900, scale: 1, mobile: false)
        public static let phone = Device(width: 390, height: 844, scale: 3, mobile: true)
    }

    private let pid: pid_t
    private let commands: Int32, replies: Int32
    private var buffer: [UInt8] = []
    private var nextID = 0
    private var session = ""
    public let device: Device
    /// URLs of every request the page made (the page itself included).
    public private(set) var requests: [String] = []
    /// Console messages, uncaught exceptions and browser log entries, as text.
    public private(set) var messages: [String] = []

    /// Starts Chromium (skipping or failing as ``HeadlessChromium`` does when it is missing) and
    /// opens `url` at `device`'s size, returning once the page's load event fired.
    public init(url: String, device: Device, profile: String) throws {
        let chromium = try HeadlessChromium(profile: profile)
        self.device = device
        var toBrowser: [Int32] = [0, 0], fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
        // Our ends stay out of the child (close-on-exec) and above 4, so the dup2 into 3 and 4
        // cannot hit one of them.
        func high(_ fd: Int32) -> Int32 { let moved = fcntl(fd, F_DUPFD_CLOEXEC, 10); close(fd); return moved }
        let childReads = high(toBrowser[0]), parentWrites = high(toBrowser[1])
        let parentReads = high(fromBrowser[0]), childWrites = high(fromBrowser[1])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, childReads, 3)
        posix_spawn_file_actions_adddup2(&actions, childWrites, 4)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, profile + ".log", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let arguments = [chromium.executable, "--headless", "--disable-gpu", "--no-sandbox", "--remote-debugging-pipe", "--hide-scrollbars",
                         "--user-data-dir=" + profile, "about:blank"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, chromium.executable, &actions, nil, &argv, environ)
        close(childReads)
        close(childWrites)
        guard status == 0 else {
            close(parentWrites); close(parentReads)
            throw Failure(description: "cannot start \(chromium.executable): \(String(cString: strerror(status)))")
        }
        pid = child
        commands = parentWrites
        replies = parentReads

        let targets = try call("Target.getTargets", [:], inSession: false)["targetInfos"] as? [[String: Any]] ?? []
        guard let target = targets.first(where: { $0["type"] as? String == "page" })?["targetId"] as? String else { throw Failure(description: "no page target") }
        session = try call("Target.attachToTarget", ["targetId": target, "flatten": true], inSession: false)["sessionId"] as? String ?? ""
        for domain in ["Page", "Runtime", "Network", "Log"] { _ = try call(domain + ".enable") }
        _ = try call("Emulation.setDeviceMetricsOverride", ["width": device.width, "height": device.height, "deviceScaleFactor": device.scale, "mobile": device.mobile])
        if device.mobile { _ = try call("Emulation.setTouchEmulationEnabled", ["enabled": true, "maxTouchPoints": 5]) }
        _ = try call("Page.navigate", ["url": url])
        _ = try waitForEvent("Page.loadEventFired", timeout: 60)
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(commands)
        close(replies)
    }

    // MARK: Protocol

    /// Sends a command to the page's session and returns its result.
    public func call(_ method: String, _ parameters: [String: Any] = [:], inSession: Bool = true, timeout: Double = 60) throws -> [String: Any] {
        nextID += 1
        var message: [String: Any] = ["id": nextID, "method": method, "params": parameters]
        if inSession { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "\(method): the browser closed its pipe") }
            written += n
        }
        let id = nextID
        while true {
            let reply = try receive(timeout: timeout, waitingFor: method)
            if reply["id"] as? Int == id {
                if let error = reply["error"] as? [String: Any] { throw Failure(description: "\(method): \(error)") }
                return reply["result"] as? [String: Any] ?? [:]
            }
            record(reply)
        }
    }

    /// Waits for an event of `method` (recording the others on the way).
    public func waitForEvent(_ method: String, timeout: Double) throws -> [String: Any] {
        while true {
            let message = try receive(timeout: timeout, waitingFor: method)
            record(message)
            if message["method"] as? String == method { return message["params"] as? [String: Any] ?? [:] }
        }
    }

    private func record(_ message: [String: Any]) {
        guard let method = message["method"] as? String, let params = message["params"] as? [String: Any] else { return }
        switch method {
        case "Network.requestWillBeSent":
            requests.append(((params["request"] as? [String: Any])?["url"] as? String) ?? "?")
        case "Runtime.consoleAPICalled":
            let args = (params["args"] as? [[String: Any]] ?? []).map { "\($0["value"] ?? $0["description"] ?? "")" }
            messages.append("console.\(params["type"] ?? ""): " + args.joined(separator: " "))
        case "Runtime.exceptionThrown":
            let details = params["exceptionDetails"] as? [String: Any]
            messages.append("exception: \((details?["exception"] as? [String: Any])?["description"] ?? details?["text"] ?? "")")
        case "Log.entryAdded":
            let entry = params["entry"] as? [String: Any]
            messages.append("log \(entry?["level"] ?? ""): \(entry?["text"] ?? "") \(entry?["url"] ?? "")")
        default: break
        }
    }

    private func receive(timeout: Double, waitingFor what: String) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let message = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                return try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any] ?? [:]
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw Failure(description: "no answer to \(what) within \(Int(timeout)) s") }
            var poller = pollfd(fd: replies, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(min(left, 1) * 1000)) >= 0 else { throw Failure(description: "poll: \(String(cString: strerror(errno)))") }
            guard poller.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(replies, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "the browser closed its pipe while \(what) was awaited") }
            buffer += chunk[..<n]
        }
    }

    // MARK: The page

    /// The value of a script run in the page (promises awaited); a thrown error fails.
    public func evaluate(_ expression: String) throws -> Any? {
        let result = try call("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let details = result["exceptionDetails"] as? [String: Any] {
            throw Failure(description: "\(expression): \((details["exception"] as? [String: Any])?["description"] ?? details["text"] ?? "")")
        }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Waits until `expression` is true in the page.
    public func waitUntil(_ expression: String, timeout: Double = 60) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try evaluate("!!(\(expression))") as? Bool != true {
            guard Date() < deadline else { throw Failure(description: "\(expression) still false after \(Int(timeout)) s") }
            usleep(50_000)
        }
    }

    /// Elements sticking out of the page's width, and boxes whose content sticks out of them
    /// (overflow that would scroll the page sideways or spill out of a card), as descriptions;
    /// content inside a box that scrolls or clips sideways is judged by that box.
    public func horizontalOverflow() throws -> [String] {
        try evaluate("""
        (() => {
          const width = document.documentElement.clientWidth, found = [];
          const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (typeof e.className === 'string' && e.className ? '.' + e.className.split(' ').join('.') : '');
          if (document.documentElement.scrollWidth > width) found.push('page ' + document.documentElement.scrollWidth + ' px wide in ' + width);
          for (const e of document.querySelectorAll('body *')) {
            let clipped = false;
            for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
              if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(p).overflowX)) { clipped = true; break; }
            }
            if (clipped) continue;
            const r = e.getBoundingClientRect();
            if (r.width > 0 && (r.right > width + 0.5 || r.left < -0.5)) found.push(name(e) + ' from ' + Math.round(r.left) + ' to ' + Math.round(r.right));
            const s = getComputedStyle(e);
            if (['block', 'flex', 'grid', 'list-item', 'table-cell'].includes(s.display) && s.overflowX === 'visible' && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
              found.push(name(e) + ' holds ' + e.scrollWidth + ' px in ' + e.clientWidth);
          }
          return found;
        })()
        """) as? [String] ?? ["no answer"]
    }

    /// The smallest text on screen, in CSS pixels of the viewport: every visible element with
    /// text of its own, at its computed size times what scales it (an SVG's viewBox), with where
    /// it is; the page's layout width beside it (980 when a phone ignores the page's width).
    public func smallestText() throws -> (pixels: Double, element: String, layoutWidth: Int) {
        let value = try evaluate("""
        (() => {
          let smallest = [1e9, 'none'];
          for (const e of document.querySelectorAll('body *')) {
            if (!Array.from(e.childNodes).some(n => n.nodeType === 3 && n.textContent.trim())) continue;
            const r = e.getBoundingClientRect();
            if (r.width === 0 || r.height === 0 || getComputedStyle(e).visibility === 'hidden') continue;
            let size = parseFloat(getComputedStyle(e).fontSize);
            const svg = e.closest('svg');
            if (svg && svg.viewBox.baseVal && svg.viewBox.baseVal.width) size *= svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            if (size < smallest[0]) smallest = [size, e.tagName.toLowerCase() + ': ' + e.textContent.trim().slice(0, 40)];
          }
          return [smallest[0], smallest[1], window.innerWidth];
        })()
        """) as? [Any] ?? []
        guard value.count == 3, let pixels = value[0] as? Double, let element = value[1] as? String, let width = value[2] as? Int else {
            throw Failure(description: "no text sizes")
        }
        return (pixels, element, width)
    }

    /// The colour (red, green, blue, alpha) of a canvas's pixel at a point in CSS pixels of the
    /// viewport, after the page has had `settle` seconds and two frames to draw.
    public func pixel(of selector: String, at p: (x: Double, y: Double), settle: Double = 0.4) throws -> [Int] {
        let value = try evaluate("""
        new Promise(done => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(() => {
          const c = document.querySelector('\(selector)'), r = c.getBoundingClientRect(), k = c.width / r.width;
          // Read through a fresh 1-pixel canvas: the page's canvas is never read back (Chromium
          // logs a warning when one is read repeatedly).
          const one = document.createElement('canvas'); one.width = one.height = 1;
          const g = one.getContext('2d', { willReadFrequently: true });
          g.drawImage(c, Math.floor((\(p.x) - r.left) * k), Math.floor((\(p.y) - r.top) * k), 1, 1, 0, 0, 1, 1);
          done(Array.from(g.getImageData(0, 0, 1, 1).data));
        })), \(Int(settle * 1000))))
        """) as? [Int] ?? []
        guard value.count == 4 else { throw Failure(description: "no pixel of \(selector)") }
        return value
    }

    /// A drag from `from` to `to` in steps: by mouse, or by one finger on a mobile device.
    public func drag(from: (x: Double, y: Double), to: (x: Double, y: Double), steps: Int = 8) throws {
        func at(_ k: Int) -> (x: Double, y: Double) { (from.x + (to.x - from.x) * Double(k) / Double(steps), from.y + (to.y - from.y) * Double(k) / Double(steps)) }
        if device.mobile {
            _ = try call("Input.dispatchTouchEvent", ["type": "touchStart", "touchPoints": [["x": from.x, "y": from.y, "id": 1]]])
            for k in 1...steps { let p = at(k); _ = try call("Input.dispatchTouchEvent", ["type": "touchMove", "touchPoints": [["x": p.x, "y": p.y, "id": 1]]]) }
            _ = try call("Input.dispatchTouchEvent", ["type": "touchEnd", "touchPoints": [[String: Any]]()])
        } else {
            _ = try call("Input.dispatchMouseEvent", ["type": "mousePressed", "x": from.x, "y": from.y, "button": "left", "buttons": 1, "clickCount": 1])
            for k in 1...steps { let p = at(k); _ = try call("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": p.x, "y": p.y, "button": "left", "buttons": 1]) }
            _ = try call("Input.dispatchMouseEvent", ["type": "mouseReleased", "x": to.x, "y": to.y, "button": "left", "buttons": 0, "clickCount": 1])
        }
    }

    /// A PNG of the page from the top, `height` CSS pixels tall at most (the whole page when
    /// nil), at `scale` of the device's pixels.
    public func screenshot(height: Double? = nil, scale: Double = 1) throws -> Data {
        let metrics = try call("Page.getLayoutMetrics")
        let content = (metrics["cssContentSize"] as? [String: Any])?["height"] as? Double ?? Double(device.height)
        let clip: [String: Any] = ["x": 0, "y": 0, "width": device.width, "height": min(content, height ?? content), "scale": scale]
        let result = try call("Page.captureScreenshot", ["format": "png", "clip": clip, "captureBeyondViewport": true])
        return Data(base64Encoded: result["data"] as? String ?? "") ?? Data()
    }

    /// The centre of an element, in CSS pixels of the viewport (scrolled into view first).
    public func centre(of selector: String) throws -> (x: Double, y: Double) {
        let value = try evaluate("""
        (() => { const e = document.querySelector('\(selector)'); e.scrollIntoView({block: 'center'});
                 const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()
        """) as? [Double] ?? []
        guard value.count == 2 else { throw Failure(description: "no element \(selector)") }
        return (value[0], value[1])
    }

    public func click(_ p: (x: Double, y: Double)) throws {
        for type in ["mousePressed", "mouseReleased"] {
            _ = try call("Input.dispatchMouseEvent", ["type": type, "x": p.x, "y": p.y, "button": "left", "clickCount": 1])
        }
    }

    public func wheel(at p: (x: Double, y: Double), deltaY: Double) throws {
        _ = try call("Input.dispatchMouseEvent", ["type": "mouseWheel", "x": p.x, "y": p.y, "deltaX": 0, "deltaY": deltaY])
    }

    /// Two fingers placed `from` apart around `p`, moved to `to` apart in steps, then lifted.
    public func pinch(at p: (x: Double, y: Double), from: Double, to: Double, steps: Int = 8) throws {
        func points(_ distance: Double) -> [[String: Any]] {
            [["x": p.x - distance / 2, "y": p.y, "id": 1], ["x": p.x + distance / 2, "y": p.y, "id": 2]]
        }
        _ = try call("Input.dispatchTouchEvent", ["type": "touchStart", "touchPoints": points(from)])
        for k in 1...steps {
            _ = try call("Input.dispatchTouchEvent", ["type": "touchMove", "touchPoints": points(from + (to - from) * Double(k) / Double(steps))])
        }
        _ = try call("Input.dispatchTouchEvent", ["type": "touchEnd", "touchPoints": [[String: Any]]()])
    }
}
