"""A file server for the url_download tests: serves DIR on loopback with a listen backlog
that takes many connections at once (http.server's 5 drops SYNs under 32 parallel downloads,
and each drop costs a 1 s retransmit), and answers GET /count with how many files it has
sent. GET /stall/NAME answers 200 with a few bytes of a longer body, then sends nothing more
(a stalled download); GET /stalled says how many such requests have come. Prints its port,
then serves until stdin closes.
    counting_file_server.py DIR"""
import functools
import http.server
import sys
import threading

served = 0
stalled = 0
lock = threading.Lock()
closing = threading.Event()


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        global served, stalled
        if self.path.startswith("/stall/"):
            with lock:
                stalled += 1
            self.send_response(200)
            self.send_header("Content-Length", str(1 << 20))
            self.end_headers()
            self.wfile.write(b"x" * 100)
            self.wfile.flush()
            closing.wait()
            return
        if self.path in ("/count", "/stalled"):
            with lock:
                body = str(served if self.path == "/count" else stalled).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        with lock:
            served += 1
        super().do_GET()


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 256


handler = functools.partial(Handler, directory=sys.argv[1])
server = Server(("127.0.0.1", 0), handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(server.server_address[1], flush=True)
sys.stdin.read()
closing.set()
server.shutdown()
