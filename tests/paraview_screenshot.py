"""Draws the spheres of a dem run's XDMF sidecar as ParaView shows them:
each sphere at its radius, coloured by the speed of its centre, and the
bodies' centres as small black points, at the last snapshot.

Usage: xvfb-run -a pvbatch tests/paraview_screenshot.py ./RUN.xmf OUT.png
(the .xmf as ./NAME.xmf or an absolute path: ParaView resolves a bare
relative name against the wrong directory). docs/img/paraview_box_rods.png
was made with it from examples/box_rods.yaml run to t = 1 s.
"""
import sys

from paraview.simple import (Box, ColorBy, CreateView, ExtractBlock,
                             GetColorTransferFunction, GetScalarBar, Render,
                             SaveScreenshot, Show, Text, XDMFReader)

xmf, png = sys.argv[1], sys.argv[2]
reader = XDMFReader(FileNames=[xmf])  # blocks "spheres" and "bodies"
reader.UpdatePipelineInformation()
t = reader.TimestepValues[-1]
view = CreateView("RenderView")
view.ViewSize = [900, 700]
view.Background = [1, 1, 1]
if hasattr(view, "UseColorPaletteForBackground"):
    view.UseColorPaletteForBackground = 0
view.OrientationAxesVisibility = 0
view.ViewTime = t

spheres = ExtractBlock(Input=reader, Selectors=["/Root/spheres"])
s = Show(spheres, view)
s.SetRepresentationType("Point Gaussian")
s.ShaderPreset = "Sphere"
s.ScaleByArray = 1
s.SetScaleArray = ["POINTS", "radius"]
s.ScaleTransferFunction.Points = [0.0, 0.0, 0.5, 0.0, 1.0, 1.0, 0.5, 0.0]
s.GaussianRadius = 1.0  # radius x 1: each sphere at its true size
ColorBy(s, ("POINTS", "velocity", "Magnitude"))
lut = GetColorTransferFunction("velocity")
lut.ApplyPreset("Viridis (matplotlib)", True)
s.RescaleTransferFunctionToDataRange(False, True)
bar = GetScalarBar(lut, view)
bar.Title = "speed (m/s)"
bar.ComponentTitle = ""
bar.TitleColor = bar.LabelColor = [0, 0, 0]
s.SetScalarBarVisibility(view, True)

bodies = ExtractBlock(Input=reader, Selectors=["/Root/bodies"])
b = Show(bodies, view)
b.SetRepresentationType("Points")
b.PointSize = 4
b.AmbientColor = b.DiffuseColor = [0, 0, 0]
ColorBy(b, None)

box = Show(Box(XLength=1, YLength=1, ZLength=1, Center=[0.5, 0.5, 0.5]), view)
box.SetRepresentationType("Outline")
box.AmbientColor = box.DiffuseColor = [0, 0, 0]
label = "%s, t = %.2f s: spheres coloured by the speed of their centre"
title = Show(Text(Text=label % (xmf.split("/")[-1], t)), view)
title.Color = [0, 0, 0]
title.FontSize = 14
title.WindowLocation = "Upper Center"

view.CameraPosition = [2.6, -1.6, 1.9]
view.CameraFocalPoint = [0.5, 0.5, 0.45]
view.CameraViewUp = [0, 0, 1]
Render(view)
SaveScreenshot(png, view, ImageResolution=[900, 700])
print("paraview_screenshot: %s at t = %.6g s" % (png, t))
