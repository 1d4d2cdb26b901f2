"""Bad input found by a user's review: every command answers it with one line on stderr
and exit code 2, never a traceback, and says it before doing the work."""

from __future__ import annotations

import json
import socket
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera_file import CalibrationError, calibration_from_dict
from setupcam.cli import main
from setupcam.inputs import is_cut_short

SEATS = ["--seats", "S=red,W=green", "--active", "red"]


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The command's stderr, checked to be one line after exit code 2."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def png_claiming(width: int, height: int) -> bytes:
    """A small PNG file whose header claims ``width`` x ``height`` pixels: a decoder
    that trusted it would need gigabytes."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0" * 16))
        + chunk(b"IEND", b"")
    )


def write_json(path: Path, data: object, prefix: str = "") -> str:
    path.write_text(prefix + json.dumps(data), encoding="utf-8")
    return str(path)


def test_an_image_over_opencvs_pixel_limit(tmp_path: Path, capsys) -> None:
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(png_claiming(60000, 60000))
    err = one_line_error(capsys, ["recognize", str(bomb)])
    assert "bomb.png: cannot read this image (too many pixels for OpenCV to open)" in err
    position = write_json(tmp_path / "p.json", {"squares": {}})
    err = one_line_error(capsys, ["score", str(bomb), position, *SEATS])
    assert "bomb.png: cannot read this image" in err


def test_an_image_cut_short(tmp_path: Path, capsys) -> None:
    # OpenCV greys out what is missing and reads on; setupcam says the file is cut.
    picture = np.random.default_rng(0).integers(0, 255, (240, 320, 3), np.uint8)
    jpeg = cv2.imencode(".jpg", picture)[1].tobytes()
    png = cv2.imencode(".png", picture)[1].tobytes()
    # A phone's photo carries a thumbnail, a whole JPEG, before its own picture.
    thumbnail = cv2.imencode(".jpg", picture[::8, ::8])[1].tobytes()
    app1 = b"Exif\0\0" + thumbnail
    with_thumbnail = jpeg[:2] + b"\xff\xe1" + (len(app1) + 2).to_bytes(2, "big") + app1 + jpeg[2:]
    for name, data in (
        ("cut.jpg", jpeg[: len(jpeg) * 85 // 100]),
        ("cut.png", png[:-100]),
        ("head-only.jpg", jpeg[:100]),  # cut before its picture even begins
        ("cut-phone.jpg", with_thumbnail[: len(with_thumbnail) * 9 // 10]),
    ):
        (tmp_path / name).write_bytes(data)
        err = one_line_error(capsys, ["recognize", str(tmp_path / name)])
        assert f"{name}: the file is cut short" in err
    for name, data in (("whole.jpg", jpeg), ("whole.png", png), ("phone.jpg", with_thumbnail)):
        (tmp_path / name).write_bytes(data)
        assert not is_cut_short(tmp_path / name), name
        assert cv2.imread(str(tmp_path / name)) is not None


def test_an_image_too_small_to_show_a_board(tmp_path: Path, capsys) -> None:
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.full((1, 1, 3), 128, np.uint8))
    err = one_line_error(capsys, ["recognize", str(tiny)])
    assert "tiny.png: 1x1 pixels is too small to show a board" in err


@pytest.mark.parametrize(
    ("debug", "message"),
    [("out.txt", "--debug {}: name an image file"), (".", "is a folder, not a file")],
)
def test_recognize_checks_debug_before_reading(
    tmp_path: Path, capsys, debug: str, message: str
) -> None:
    image = tmp_path / "grey.png"
    cv2.imwrite(str(image), np.full((200, 300, 3), 128, np.uint8))
    target = tmp_path / debug
    err = one_line_error(capsys, ["recognize", str(image), "--debug", str(target)])
    assert message.format(target) in err
    assert capsys.readouterr().out == ""  # said before any JSON


def test_a_model_file_that_is_not_a_model(tmp_path: Path, capsys) -> None:
    image = tmp_path / "grey.png"
    cv2.imwrite(str(image), np.full((200, 300, 3), 128, np.uint8))
    model = tmp_path / "tiles.onnx"
    model.write_bytes(b"not a network")
    meta = json.loads(Path("models/tiles.json").read_text(encoding="utf-8"))
    write_json(tmp_path / "tiles.json", meta)
    err = one_line_error(capsys, ["recognize", str(image), "--model", str(model)])
    assert "tiles.onnx: not an ONNX model onnxruntime can load" in err
    write_json(tmp_path / "tiles.json", {"input_px": 84})
    err = one_line_error(capsys, ["recognize", str(image), "--model", str(model)])
    assert "tiles.json: not a tile model's metadata (no 'labels')" in err


def test_an_enrolment_that_is_a_folder_or_not_an_enrolment(tmp_path: Path, capsys) -> None:
    image = tmp_path / "grey.png"
    cv2.imwrite(str(image), np.full((200, 300, 3), 128, np.uint8))
    err = one_line_error(capsys, ["recognize", str(image), "--enrollment", str(tmp_path)])
    assert "is a folder, not an enrolment file" in err
    text = tmp_path / "set.npz"
    text.write_text("hello")
    err = one_line_error(capsys, ["recognize", str(image), "--enrollment", str(text)])
    assert "set.npz: not a setupcam enrolment file" in err and "pickle" not in err


def test_json_files_nested_too_deeply(tmp_path: Path, capsys) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    good = write_json(tmp_path / "good.json", {"squares": {}})
    assert "JSON nested too deeply" in one_line_error(capsys, ["score", str(deep), good, *SEATS])
    assert "JSON nested too deeply" in one_line_error(capsys, ["replay", str(deep)])
    err = one_line_error(capsys, ["coloretto", "score", str(deep)])
    assert "JSON nested too deeply" in err


def test_json_saved_with_a_byte_order_mark(tmp_path: Path, capsys) -> None:
    before = write_json(tmp_path / "before.json", {"squares": {"b2": "5h"}}, prefix="\ufeff")
    after = write_json(tmp_path / "after.json", {"squares": {"b2": "5h", "b3": "6h"}}, "\ufeff")
    assert main(["score", before, after, *SEATS]) == 0
    assert json.loads(capsys.readouterr().out)["points"] == 2


def test_score_checks_teams_and_calibration(tmp_path: Path, capsys) -> None:
    before = write_json(tmp_path / "before.json", {"squares": {"b2": "5h"}})
    after = write_json(tmp_path / "after.json", {"squares": {"b2": "5h", "b3": "6h"}})
    four = ["--seats", "S=red,W=green,N=yellow,E=purple", "--active", "red"]
    assert main(["score", before, after, *four, "--teams", "red+yellow,green+purple"]) == 0
    assert json.loads(capsys.readouterr().out)["points"] == 2
    err = one_line_error(capsys, ["score", before, after, *four, "--teams", "red+blue,green"])
    assert err.startswith("setupcam score: error: --teams:")
    # Said in the form typed on the command line, not the JSON form of a game file.
    assert "red+yellow,green+purple" in err and "[[" not in err
    bad = write_json(tmp_path / "cal.json", {"image_size": [0, 0]})
    err = one_line_error(capsys, ["score", before, after, *SEATS, "--calibration", bad])
    assert "'image_size' must be [width, height]" in err


@pytest.mark.parametrize(
    ("corners", "message"),
    [
        ([[1e308, 0], [1e308, 1], [0, 1e308], [0, 0]], "lie far outside the 1280x720 image"),
        ([[5000, 5000], [6000, 5000], [6000, 6000], [5000, 6000]], "lie far outside"),
    ],
)
def test_calibration_corners_far_outside_the_image(corners: list, message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        calibration_from_dict({"image_size": [1280, 720], "board_corners": corners})


def test_a_board_reaching_past_the_picture_is_still_a_calibration() -> None:
    corners = [[-100, 50], [1300, 40], [1290, 700], [-90, 710]]
    cal = calibration_from_dict({"image_size": [1280, 720], "board_corners": corners})
    assert cal.board_corners_for(640, 360)[0].tolist() == [-50.0, 25.0]


def test_the_live_commands_say_why_they_cannot_start(tmp_path: Path, capsys) -> None:
    err = one_line_error(capsys, ["demo", "--db", str(tmp_path)])
    assert "--db" in err and "is a folder, not a database file" in err
    not_a_db = tmp_path / "games.sqlite"
    not_a_db.write_text("hello, not a database")
    err = one_line_error(capsys, ["demo", "--db", str(not_a_db)])
    assert "cannot open the game database (file is not a database)" in err
    err = one_line_error(capsys, ["demo", "--host", "nosuchhost.invalid"])
    assert "--host nosuchhost.invalid: not an address of this computer" in err
    err = one_line_error(capsys, ["serve", "--camera", "-1"])
    assert "--camera must be 0 or more" in err


def test_a_port_in_use_is_one_line(capsys) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        err = one_line_error(capsys, ["demo", "--port", str(port)])
    assert f"port {port} is in use by another program" in err


@pytest.mark.parametrize("command", [["eval", "--games", "1"], ["demo"], ["synth", "--out", "x"]])
def test_negative_seeds_are_refused_by_name(command: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--seed", "-1"])
    assert exit_info.value.code == 2
    assert "argument --seed: must be 0 or more, not -1" in capsys.readouterr().err


def test_lens_calibration_needs_four_photos_before_reading_them(tmp_path: Path, capsys) -> None:
    photos = [str(tmp_path / f"missing{i}.jpg") for i in range(3)]
    err = one_line_error(capsys, ["calibrate", "lens", *photos, "--out", str(tmp_path / "c.json")])
    assert "3 photo(s) given: the lens needs the target seen in at least 4 photos" in err


def test_one_photo_given_twice_is_refused_before_anything_is_fitted(tmp_path: Path, capsys) -> None:
    # A copy under another name would count one view twice in the lens's fit, and in
    # an enrolment; the same file written two ways is one photo too.
    photos = []
    for i in range(4):
        photo = tmp_path / f"target{i}.png"
        cv2.imwrite(str(photo), np.full((480, 640, 3), 40 * i, np.uint8))
        photos.append(str(photo))
    copy = tmp_path / "copy of target1.png"
    copy.write_bytes(Path(photos[1]).read_bytes())
    out = tmp_path / "c.json"
    err = one_line_error(capsys, ["calibrate", "lens", *photos, str(copy), "--out", str(out)])
    assert f"{copy} is the same photo as {photos[1]}: give each photo of the target once" in err
    again = str(tmp_path / "." / "target2.png")
    err = one_line_error(capsys, ["calibrate", "lens", *photos, again, "--out", str(out)])
    assert f"{again} is given 2 times" in err
    pairs = [f"{photos[1]}=a.json", f"{copy}=b.json"]
    err = one_line_error(capsys, ["enroll", *pairs])
    assert "is the same photo as" in err and "its own position file" in err
    assert not out.exists()


@pytest.mark.parametrize("command", [["recognize"], ["calibrate", "board"]])
def test_debug_never_overwrites_the_photo_being_read(
    tmp_path: Path, capsys, command: list[str]
) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), np.full((480, 640, 3), 90, np.uint8))
    before = photo.read_bytes()
    out = ["--out", str(tmp_path / "c.json")] if command[0] == "calibrate" else []
    written_otherwise = str(tmp_path / "." / "table.png")
    err = one_line_error(capsys, [*command, str(photo), *out, "--debug", written_otherwise])
    assert "is the photo being read" in err
    assert photo.read_bytes() == before


def test_recognize_says_when_the_board_lies_outside_the_picture(tmp_path: Path, capsys) -> None:
    # A calibration of another view: the corners are taken, and every square reads
    # "?"; the user is told why, and what to do.
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), np.full((720, 1280, 3), 120, np.uint8))
    half_out = [[-500, 100], [500, 100], [500, 700], [-500, 700]]
    cal = write_json(tmp_path / "cal.json", {"image_size": [1280, 720], "board_corners": half_out})
    assert main(["recognize", str(image), "--calibration", cal]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["board"]["found"]
    assert "only 50% of the board's outline lies inside the picture" in captured.err
    assert "setupcam calibrate board" in captured.err
    # Wholly outside: no board in this picture at all.
    all_out = [[-1000, 100], [-300, 100], [-300, 700], [-1000, 700]]
    cal = write_json(tmp_path / "cal.json", {"image_size": [1280, 720], "board_corners": all_out})
    assert main(["recognize", str(image), "--calibration", cal]) == 0
    out = json.loads(capsys.readouterr().out)
    assert not out["board"]["found"] and "lie outside this picture" in out["board"]["reason"]
    assert set(out["squares"].values()) == {"?"}


def test_enroll_plan_takes_no_other_option(tmp_path: Path, capsys) -> None:
    err = one_line_error(capsys, ["enroll", "--plan", str(tmp_path), "--out", "x.npz"])
    assert "give it alone (not --out)" in err
    assert list(tmp_path.iterdir()) == []


def test_enroll_writes_only_into_a_folder_that_is_there(tmp_path: Path, capsys) -> None:
    out = tmp_path / "not-there" / "set.npz"
    err = one_line_error(capsys, ["enroll", "--out", str(out), "a.png=a.json"])
    assert f"--out {out}: no such folder" in err
    assert not out.parent.exists()


def test_seats_whose_colours_cannot_tell_south_are_said_so(capsys) -> None:
    from engine import Seats
    from setupcam.commands.recognize import board_look

    assert board_look(None, Seats.parse("S=red,W=blah")) is None
    err = capsys.readouterr().err
    assert "'blah' is not a colour name setupcam knows" in err and err.count("\n") == 1
    assert board_look(None, Seats.parse("S=red,W=green")) is not None
    assert capsys.readouterr().err == ""


def target_photos(
    tmp_path: Path, seed: int, size: tuple[int, int], focal: float, count: int
) -> list[str]:
    """Simulated photos of the printed lens target, written as PNG files."""
    from calibration.synthetic import camera_matrix, charuco_view

    rng = np.random.default_rng(seed)
    lens = camera_matrix(*size, focal)
    photos = []
    for i in range(count):
        photo = tmp_path / f"target{i}.png"
        cv2.imwrite(str(photo), charuco_view(rng, lens, None, size))
        photos.append(str(photo))
    return photos


def test_too_few_photos_of_the_target_say_which_ones_showed_it(tmp_path: Path, capsys) -> None:
    photos = target_photos(tmp_path, 3, (800, 600), 700.0, count=2)
    for i in (2, 3):  # two photos are of the table alone
        photo = tmp_path / f"table{i}.png"
        cv2.imwrite(str(photo), np.full((600, 800, 3), 90 + i, np.uint8))
        photos.append(str(photo))
    assert main(["calibrate", "lens", *photos, "--out", str(tmp_path / "c.json")]) == 2
    out = capsys.readouterr().out
    assert f"{photos[0]}: target seen (keep this photo)" in out
    assert f"{photos[2]}: target not found" in out


@pytest.mark.parametrize(
    ("corners", "words"),
    [
        ("", "--corners needs four points"),  # not silently found automatically instead
        ("nan,1 200,1 200,200 1,200", "finite numbers"),
        ("0,0 1,0 1,1 0,1", "shortest side is 1 px"),
    ],
)
def test_corners_that_are_no_board_are_refused(
    tmp_path: Path, capsys, corners: str, words: str
) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), np.full((480, 640, 3), 90, np.uint8))
    out = tmp_path / "c.json"
    argv = ["calibrate", "board", str(photo), "--corners", corners, "--out", str(out)]
    assert words in one_line_error(capsys, argv)
    assert not out.exists()


def test_the_lens_target_is_not_taken_for_the_board(tmp_path: Path, capsys) -> None:
    said = []
    for i, photo in enumerate(target_photos(tmp_path, 5, (1280, 720), 900.0, count=3)):
        out = tmp_path / f"c{i}.json"
        said.append(one_line_error(capsys, ["calibrate", "board", photo, "--out", str(out)]))
        assert not out.exists()
    # Two of the three had an outline found on the target: it is named for what it is.
    assert sum("the outline found is the lens's printed target" in s for s in said) == 2


def test_a_folder_given_as_calibration_or_model_is_said_to_be_a_folder(
    tmp_path: Path, capsys
) -> None:
    # "no such calibration file" for a folder that is there sends the user looking
    # for a missing file; say what it is instead.
    folder = tmp_path / "calib.json"
    folder.mkdir()
    image = tmp_path / "photo.png"
    cv2.imwrite(str(image), np.full((200, 200, 3), 128, np.uint8))
    err = one_line_error(capsys, ["recognize", str(image), "--calibration", str(folder)])
    assert "is a folder" in err
    err = one_line_error(capsys, ["recognize", str(image), "--model", str(folder)])
    assert "is a folder" in err
    position = write_json(tmp_path / "p.json", {"squares": {}})
    pair, out = f"{image}={position}", str(tmp_path / "e.json")
    err = one_line_error(capsys, ["enroll", "--calibration", str(folder), pair, "--out", out])
    assert "is a folder" in err
    err = one_line_error(capsys, ["enroll", pair, "--model", str(folder), "--out", out])
    assert "is a folder" in err
    seats = ["--seats", "S=red,N=green", "--active", "red"]
    err = one_line_error(
        capsys, ["score", position, position, *seats, "--calibration", str(folder)]
    )
    assert "is a folder, not a calibration file" in err
    err = one_line_error(capsys, ["serve", "--folder", position])
    assert "is a file, not a folder of images" in err
