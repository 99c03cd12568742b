"""A file server for the url_download tests: serves DIR on loopback with a listen backlog
that takes many connections at once (http.server's 5 drops SYNs under 32 parallel downloads,
and each drop costs a 1 s retransmit), and answers GET /count with how many files it has
sent. Prints its port, then serves until stdin closes.
    counting_file_server.py DIR"""
import functools
import http.server
import sys
import threading

served = 0
lock = threading.Lock()


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        global served
        if self.path == "/count":
            with lock:
                body = str(served).encode()
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
server.shutdown()
