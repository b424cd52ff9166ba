"""The pipelining Redis client the shared rate limits use, against the local Redis and a silent server."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest

from garage_tools.access.redis_client import (
    RedisClient,
    RedisReplyError,
    RedisUnavailable,
    Script,
    encode_command,
)
from garage_tools.redis_address import RedisAddress
from garage_tools.settings import Settings
from tests.polling import eventually, eventually_async

REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture
async def client() -> AsyncIterator[RedisClient]:
    redis = RedisClient(REDIS_URL)
    yield redis
    await redis.close()


@pytest.fixture
def key() -> str:
    return f"garage-tools-test:client:{uuid.uuid4().hex}"


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("redis://127.0.0.1:6379/0", RedisAddress()),
        ("redis://cache.internal", RedisAddress(host="cache.internal")),
        ("redis://:s%40cret@10.0.0.5:6380/2", RedisAddress(host="10.0.0.5", port=6380, db=2, password="s@cret")),
        (
            "rediss://app:pw@redis.example.com/1",
            RedisAddress("redis.example.com", db=1, username="app", password="pw", tls=True),
        ),
        ("redis://localhost?db=4", RedisAddress(host="localhost", db=4)),
        ("unix:///run/redis.sock?db=1", RedisAddress(path="/run/redis.sock", db=1)),
    ],
)
def test_urls_name_the_server_the_database_and_the_login(url: str, address: RedisAddress) -> None:
    assert RedisAddress.from_url(url) == address


def test_a_url_of_another_scheme_is_refused() -> None:
    with pytest.raises(ValueError, match="redis://"):
        RedisAddress.from_url("http://127.0.0.1:6379")


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("redis://:pw-9f2@127.0.0.1:port/0", "the port must be a number"),
        ("redis://:pw-9f2@127.0.0.1:0/0", "the port must be a number"),
        ("redis://:pw-9f2@127.0.0.1:65536", "the port must be a number"),
        ("redis://:pw-9f2@127.0.0.1:6379/first", "database number"),
        ("redis://:pw-9f2@127.0.0.1:6379/-1", "database number"),
        ("redis://127.0.0.1?db=two", "database number"),
        ("redis://:pw-9f2@[::1:6379", "brackets"),
        ("unix://", "socket's path"),
        ("127.0.0.1:6379", "starts with redis://"),
    ],
)
def test_a_malformed_url_is_a_settings_error_that_keeps_the_password_out(url: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem) as raised:
        Settings(redis_url=url)
    assert "pw-9f2" not in str(raised.value)


def test_commands_are_sent_as_resp_arrays_of_bulk_strings() -> None:
    assert encode_command(("INCRBY", "k", 5)) == b"*3\r\n$6\r\nINCRBY\r\n$1\r\nk\r\n$1\r\n5\r\n"
    assert encode_command(("SET", "k", "é")) == b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\n\xc3\xa9\r\n"


async def test_concurrent_commands_share_one_connection_and_each_gets_its_own_reply(
    client: RedisClient, key: str
) -> None:
    replies = await asyncio.gather(*(client.execute("INCR", key) for _ in range(300)))
    assert sorted(replies) == list(range(1, 301))  # every reply went to exactly one command
    await client.execute("DEL", key)


async def test_an_error_reply_is_raised_and_the_connection_stays_in_step(client: RedisClient, key: str) -> None:
    await client.execute("SET", key, "not a number")
    with pytest.raises(RedisReplyError, match="not an integer"):
        await client.execute("INCR", key)
    assert await client.execute("GET", key) == b"not a number"
    await client.execute("DEL", key)


async def test_a_dropped_connection_fails_its_commands_and_the_next_one_reconnects(client: RedisClient) -> None:
    own_id = await client.execute("CLIENT", "ID")
    killer = RedisClient(REDIS_URL)
    await killer.execute("CLIENT", "KILL", "ID", own_id)
    await killer.close()

    async def dropped() -> bool:
        return client._connection is not None and not client._connection.open

    await eventually_async(dropped, seconds=5, what="the kill to reach the client's connection")
    assert await client.execute("PING") == b"PONG"
    assert await client.execute("CLIENT", "ID") != own_id


async def test_the_database_in_the_url_is_selected() -> None:
    redis = RedisClient("redis://127.0.0.1:6379/3")
    info = await redis.execute("CLIENT", "INFO")
    await redis.close()
    assert b" db=3 " in info


async def test_an_unreachable_server_is_unavailable() -> None:
    redis = RedisClient("redis://127.0.0.1:1/0", timeout=0.5)
    with pytest.raises(RedisUnavailable, match="cannot connect"):
        await redis.execute("PING")


async def test_a_server_that_never_answers_times_out_and_is_left() -> None:
    accepted: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)  # read nothing, answer nothing

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    redis = RedisClient(f"redis://127.0.0.1:{port}/0", timeout=0.2)
    try:
        with pytest.raises(RedisUnavailable, match="did not answer"):
            await redis.execute("PING")
        assert redis._connection is not None and not redis._connection.open  # the next command connects afresh
    finally:
        server.close()
        for writer in accepted:
            writer.close()
        await server.wait_closed()


async def test_a_script_redis_has_not_seen_is_loaded_then_run_by_its_sha(client: RedisClient, key: str) -> None:
    script = Script(client, f"-- {uuid.uuid4().hex}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])")
    assert await client.execute("SCRIPT", "EXISTS", script.sha) == [0]
    assert await script([key], [2]) == 2  # NOSCRIPT, then EVAL, which also loads it
    assert await client.execute("SCRIPT", "EXISTS", script.sha) == [1]
    assert await script([key], [3]) == 5
    await client.execute("DEL", key)


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def guarded_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A Redis server of the test's own that asks for a password."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    workdir = tmp_path_factory.mktemp("redis")
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--requirepass", "s3cret", "--save", "",
         "--appendonly", "no", "--dir", str(workdir)],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        eventually(lambda: listening(port), seconds=10, what=f"redis-server to listen on port {port}")
        yield port
    finally:
        server.terminate()
        server.wait(10)


async def test_the_password_in_the_url_logs_in(guarded_redis: int) -> None:
    redis = RedisClient(f"redis://:s3cret@127.0.0.1:{guarded_redis}/0")
    assert await redis.execute("PING") == b"PONG"
    await redis.close()


async def test_a_wrong_password_is_a_reply_error(guarded_redis: int) -> None:
    redis = RedisClient(f"redis://:wrong@127.0.0.1:{guarded_redis}/0")
    with pytest.raises(RedisReplyError, match=r"WRONGPASS|invalid"):
        await redis.execute("PING")
