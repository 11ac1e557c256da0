"""The rate-distortion plot of the clipkit benchmark: bytes (x, log scale) against SSIM (y), one panel per clip,
one line per tool family, each point labelled with its setting. Drawn with matplotlib when it is installed,
else with Pillow (plain axes, same content).

plot(rd, path) takes bench.py's RD sections (dicts with "label" and "rows"; each row with "family",
"setting", "bytes" and q["ssim_mean"]) and returns how it was drawn.
"""

import math

COLOURS = ["#1f77b4", "#2ca02c", "#9467bd", "#d62728", "#ff7f0e", "#8c564b"]
MARKERS = ["o", "s", "^", "D", "v", "P"]


def series(section):
    """{family: [(bytes, ssim, label)]} sorted by bytes, families in order of first appearance."""
    out = {}
    for name, row in section["rows"].items():
        q = row.get("q")
        if not q or not row.get("bytes"):
            continue
        st = row["setting"]
        if isinstance(st, float) and st < 1:
            lab = f"{st:.0%}"
        elif st == 0 and name == "clipkit":
            lab = "default"
        else:
            lab = str(st)
        out.setdefault(row["family"], []).append((row["bytes"], q["ssim_mean"], lab))
    for v in out.values():
        v.sort()
    return out


def short(label):
    return label.split(" 30 fps")[0]


def plot(rd, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        return plot_pillow(rd, path)
    families = []
    for sec in rd:
        for fam in series(sec):
            if fam not in families:
                families.append(fam)
    fig, axes = plt.subplots(1, len(rd), figsize=(6.5 * len(rd), 5), squeeze=False)
    for ax, sec in zip(axes[0], rd):
        for fam, pts in series(sec).items():
            i = families.index(fam)
            xs, ys = [p[0] / 1e6 for p in pts], [p[1] for p in pts]
            ax.plot(xs, ys, marker=MARKERS[i % len(MARKERS)], color=COLOURS[i % len(COLOURS)], label=fam)
            for x, y, lab in pts:
                ax.annotate(lab, (x / 1e6, y), textcoords="offset points", xytext=(4, 4), fontsize=7,
                            color=COLOURS[i % len(COLOURS)])
        ax.set_xscale("log")
        fmt = FuncFormatter(lambda v, _: f"{v:g}")
        ax.xaxis.set_major_formatter(fmt)
        ax.xaxis.set_minor_formatter(fmt)
        ax.tick_params(axis="x", which="minor", labelsize=7)
        ax.set_xlabel("output bytes (MB, log scale)")
        ax.set_ylabel("SSIM, best overlapping source frame (mean)")
        ax.set_title(short(sec["label"]) + ", 10 fps, 480 px")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    import matplotlib as m
    return f"matplotlib {m.__version__}"


def plot_pillow(rd, path):
    from PIL import Image, ImageDraw
    pw, ph, ml, mr, mt, mb = 640, 480, 70, 20, 40, 60
    img = Image.new("RGB", (pw * len(rd), ph), "white")
    d = ImageDraw.Draw(img)
    families = []
    for sec in rd:
        for fam in series(sec):
            if fam not in families:
                families.append(fam)
    for k, sec in enumerate(rd):
        ox = k * pw
        pts_all = [p for v in series(sec).values() for p in v]
        if not pts_all:
            continue
        lx = [math.log10(p[0]) for p in pts_all]
        ys = [p[1] for p in pts_all]
        x0, x1 = min(lx) - 0.05, max(lx) + 0.05
        y0, y1 = min(ys) - 0.01, max(ys) + 0.01

        def at(b, s):
            return (ox + ml + (math.log10(b) - x0) / (x1 - x0) * (pw - ml - mr),
                    mt + (y1 - s) / (y1 - y0) * (ph - mt - mb))

        d.rectangle([ox + ml, mt, ox + pw - mr, ph - mb], outline="black")
        for i in range(6):
            s = y0 + (y1 - y0) * i / 5
            _, y = at(10 ** x0, s)
            d.line([ox + ml - 4, y, ox + ml, y], fill="black")
            d.text((ox + 5, y - 6), f"{s:.3f}", fill="black")
            lv = x0 + (x1 - x0) * i / 5
            x, _ = at(10 ** lv, y0)
            d.line([x, ph - mb, x, ph - mb + 4], fill="black")
            d.text((x - 15, ph - mb + 8), f"{10 ** lv / 1e6:.2f}", fill="black")
        d.text((ox + ml, ph - 25), "output MB (log scale) ->   y: SSIM, best overlapping source frame", fill="black")
        d.text((ox + ml, 10), short(sec["label"]) + ", 10 fps, 480 px", fill="black")
        for fam, pts in series(sec).items():
            c = COLOURS[families.index(fam) % len(COLOURS)]
            xy = [at(b, s) for b, s, _ in pts]
            if len(xy) > 1:
                d.line(xy, fill=c, width=2)
            for (x, y), (_, _, lab) in zip(xy, pts):
                d.ellipse([x - 3, y - 3, x + 3, y + 3], fill=c)
                d.text((x + 4, y - 12), lab, fill=c)
        for i, fam in enumerate(families):
            d.text((ox + ml + 10, mt + 8 + 14 * i), fam, fill=COLOURS[i % len(COLOURS)])
    img.save(path)
    return "Pillow (matplotlib not installed)"
