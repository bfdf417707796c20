"""``mien.Client``: the same ``analyze`` and ``Detector`` against a running ``mien serve`` (jobs and the live
WebSocket), for a notebook on a machine where the engine does not run (macOS, Windows, Mien in a container).

Only the standard library: HTTP with ``urllib``, the WebSocket (RFC 6455, client side) over a socket.
"""

from __future__ import annotations

import base64
import io
import json
import os
import socket
import struct
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np
import pandas as pd

from ._detector import _bgr_bytes
from ._errors import EngineError, InputError, MienError, OptionsError
from ._frames import _metric_groups, _read_csv, _typed
from ._result import Result



class Client:
    """A ``mien serve`` at ``url``.

        >>> client = mien.Client("http://127.0.0.1:8080")
        >>> df = client.analyze("talk.mp4", metrics="emotions")      # uploaded as a job, its CSV read back
        >>> with client.detector(metrics="expressions") as detector:  # frames over the live WebSocket
        ...     result = detector.process(frame, 0.0)

    Args:
        url: the service's address (``http://host:port``).
        token: its bearer token, when it binds beyond loopback (``mien serve --token``).
        timeout: seconds to wait for one answer (a job's whole analysis may take longer: it is polled).
    """

    def __init__(self, url: str = "http://127.0.0.1:8080", token: Optional[str] = None, timeout: float = 60) -> None:
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise OptionsError(f"url must be http://host:port, not {url!r}")
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    # -- HTTP --------------------------------------------------------------------------------------------

    def _request(self, method: str, path: str, body: Optional[bytes] = None,
                 content_type: Optional[str] = None) -> bytes:
        request = urllib.request.Request(self.url + path, data=body, method=method)
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        if content_type:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as error:
            raise _service_error(error.code, error.read()) from None
        except urllib.error.URLError as error:
            raise EngineError(f"cannot reach the service ({error.reason})", self.url) from None

    def health(self) -> bool:
        """Whether the service answers ``/healthz``."""
        return json.loads(self._request("GET", "/healthz")).get("status") == "ok"

    def analyze(self, inputs: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]], *,
                metrics: Union[str, Sequence[str]] = "all", max_faces: int = 5, face_mode: str = "large",
                reidentify: bool = False, poll: float = 0.2) -> pd.DataFrame:
        """As ``mien.analyze``, on the service: each file is uploaded as a job (``POST /v1/jobs``), waited for,
        and its CSV read back; the job is then deleted. Rows are the CSV's, with ``input`` first.

        Raises:
            InputError: a file the service refused or could not analyse (named).
            EngineError: the service cannot be reached.
        """
        paths = [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs)
        query = self._settings(metrics, max_faces, face_mode, None, reidentify)
        parts = []
        for path in paths:
            name = str(path)
            try:
                body = Path(path).read_bytes()
            except OSError as error:
                raise InputError(f"cannot read ({error.strerror})", name) from None
            status = json.loads(self._request(
                "POST", "/v1/jobs?" + urllib.parse.urlencode({**query, "name": name}), body,
                "application/octet-stream"))
            job = status["id"]
            try:
                while status["state"] in ("queued", "running"):
                    time.sleep(poll)
                    status = json.loads(self._request("GET", f"/v1/jobs/{job}"))
                if status["state"] != "done":
                    detail = status.get("error") or {}
                    raise InputError(detail.get("message", status["state"]), detail.get("input", name))
                csv = self._request("GET", f"/v1/jobs/{job}/results.csv")
            finally:
                self._request("DELETE", f"/v1/jobs/{job}")
            frame = pd.read_csv(io.BytesIO(csv), dtype=str, keep_default_na=False, encoding="utf-8")
            frame.insert(0, "input", name)
            parts.append(_typed(frame))
        result = pd.concat(parts, ignore_index=True) if parts else _typed(pd.DataFrame(columns=["input"]))
        result.attrs = {"service": self.url, "settings": query}
        return result

    def detector(self, *, metrics: Union[str, Sequence[str]] = "all", max_faces: int = 5,
                 face_mode: str = "large", rate: Optional[float] = None, reidentify: bool = False,
                 color: str = "bgr") -> "RemoteDetector":
        """A live session (``/v1/live``) used as ``mien.Detector``: video mode, faces tracked across calls.

        ``rate`` None analyses every frame (the session's 5 frames a second default is for cameras).
        """
        if color not in ("bgr", "rgb"):
            raise OptionsError(f"color must be 'bgr' or 'rgb', not {color!r}")
        query = self._settings(metrics, max_faces, face_mode, rate if rate is not None else 1e6, reidentify)
        return RemoteDetector(self, query, color)

    @staticmethod
    def _settings(metrics: Union[str, Sequence[str]], max_faces: int, face_mode: str, rate: Optional[float],
                  reidentify: bool) -> Dict[str, str]:
        groups = _metric_groups(metrics)  # the words mien.Detector and the command line take
        if not isinstance(max_faces, int) or not 1 <= max_faces <= 64:
            raise OptionsError(f"max_faces must be a whole number within 1...64, not {max_faces!r}")
        if face_mode not in ("large", "small"):
            raise OptionsError(f"face_mode must be 'large' or 'small', not {face_mode!r}")
        query = {"metrics": ",".join(groups), "maxFaces": str(max_faces), "faceMode": face_mode}
        if rate is not None:
            if not rate > 0:
                raise OptionsError(f"rate must be a positive number of frames per second, not {rate!r}")
            query["rate"] = repr(float(rate))
        if reidentify:
            query["reidentify"] = "true"
        return query


class RemoteDetector:
    """A live session on a ``mien serve``: ``process(frame, timestamp)`` returns that frame's ``Result``.

    Frames travel as binary PPM pictures (lossless, as the local ``Detector`` sees them), at most the service's
    message limit (16 MiB by default: 2.7 MB for 720p).
    """

    def __init__(self, client: Client, query: Dict[str, str], color: str) -> None:
        self.color = color
        if client.token:
            query = {**query, "token": client.token}
        parsed = urllib.parse.urlsplit(client.url)
        self._socket = _WebSocket(parsed.hostname or "127.0.0.1", parsed.port or 80,
                                  "/v1/live?" + urllib.parse.urlencode(query), client.timeout)
        ready = self._next()
        if ready.get("type") != "ready":
            self.close()
            raise _message_error(ready)
        self.session = ready.get("session")

    def process(self, frame: np.ndarray, timestamp: float) -> Result:
        """Analyses one frame on the service. Raises ``InputError`` for a refused frame (time not advancing)."""
        pixels = _bgr_bytes(frame, self.color)
        height, width = frame.shape[:2]
        # PPM is RGB: the BGR bytes reversed per pixel.
        rgb = np.frombuffer(pixels, dtype=np.uint8).reshape(height, width, 3)[:, :, ::-1].tobytes()
        picture = f"P6\n{width} {height}\n255\n".encode() + rgb
        self._socket.send_binary(struct.pack("<d", float(timestamp) * 1000) + picture)
        while True:
            message = self._next()
            kind = message.get("type")
            if kind == "result":
                return Result.from_dict(message["result"])
            if kind == "error":
                raise _message_error(message)

    def reset(self) -> None:
        """Forgets every face, ID and baseline on the service's side."""
        self._socket.send_text(json.dumps({"type": "reset"}))

    def close(self) -> None:
        """Ends the session. Calling it again does nothing."""
        self._socket.close()

    def __enter__(self) -> "RemoteDetector":
        return self

    def __exit__(self, *exception: Any) -> None:
        self.close()

    def _next(self) -> Dict[str, Any]:
        return json.loads(self._socket.receive_text())


def _service_error(status: int, body: bytes) -> MienError:
    try:
        detail = json.loads(body)["error"]
    except (ValueError, KeyError, TypeError):
        detail = {"message": body.decode("utf-8", "replace") or f"HTTP {status}"}
    kind = OptionsError if status == 400 and detail.get("code") in ("invalidOptions", "invalidArgument") else \
        InputError if status in (400, 413, 415) else EngineError
    return kind(detail.get("message", f"HTTP {status}"), detail.get("input"))


def _message_error(message: Dict[str, Any]) -> MienError:
    detail = message.get("error") or {}
    kind = OptionsError if detail.get("code") in ("invalidOptions", "invalidArgument") else InputError
    return kind(detail.get("message", "refused"), detail.get("input"))


class _WebSocket:
    """A client WebSocket (RFC 6455): the handshake, masked frames out, text and binary frames in."""

    def __init__(self, host: str, port: int, path: str, timeout: float) -> None:
        self._socket = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self._socket.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                              f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                              "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self._socket.recv(4096)
            if not chunk:
                raise EngineError("the service closed the connection during the WebSocket handshake")
            head += chunk
        head, self._buffer = head.split(b"\r\n\r\n", 1)
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status + b" ":
            raise EngineError(f"the service refused the live session ({status.decode('latin-1')})")
        self._closed = False

    def send_binary(self, payload: bytes) -> None:
        self._send(0x2, payload)

    def send_text(self, text: str) -> None:
        self._send(0x1, text.encode())

    def _send(self, opcode: int, payload: bytes) -> None:
        if self._closed:
            raise EngineError("the live session is closed")
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
        elif length < 1 << 16:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
        masked = (np.frombuffer(payload, dtype=np.uint8) ^ np.resize(np.frombuffer(mask, dtype=np.uint8),
                                                                      length)).tobytes()
        self._socket.sendall(header + mask + masked)

    def _read(self, count: int) -> bytes:
        while len(self._buffer) < count:
            chunk = self._socket.recv(max(65536, count - len(self._buffer)))
            if not chunk:
                raise EngineError("the service closed the live session")
            self._buffer += chunk
        data, self._buffer = self._buffer[:count], self._buffer[count:]
        return data

    def receive_text(self) -> str:
        """The next text message (pings answered, binary ignored); ``EngineError`` when the session closes."""
        message = b""
        while True:
            first, second = self._read(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", self._read(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", self._read(8))
            payload = self._read(length)
            if opcode == 0x8:
                self._closed = True
                reason = payload[2:].decode("utf-8", "replace") if len(payload) > 2 else ""
                raise EngineError(f"the service closed the live session ({reason or 'no reason'})")
            if opcode == 0x9:
                self._send(0xA, payload)
                continue
            if opcode in (0x1, 0x0):
                message += payload
                if first & 0x80:
                    return message.decode("utf-8")

    def close(self) -> None:
        if not self._closed:
            try:
                self._send(0x8, struct.pack("!H", 1000))
            except OSError:
                pass
            self._closed = True
        self._socket.close()
