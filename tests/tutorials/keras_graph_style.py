"""tf.keras in TF1 graph mode (2018 tutorials): Sequential and functional models,
compile/fit/evaluate/predict with callbacks, save_weights/load_weights (h5), and the
model's tensors used with a tf.Session."""
import os
import tempfile

import numpy as np
import tensorflow as tf

np.random.seed(0)
tf.set_random_seed(0)
keras = tf.keras

x = np.random.rand(256, 10).astype(np.float32)
w = np.random.rand(10, 1).astype(np.float32)
y_reg = (x @ w + 0.1 * np.random.randn(256, 1)).astype(np.float32)
y_cls = (y_reg[:, 0] > np.median(y_reg)).astype(np.int32)

model = keras.Sequential([
    keras.layers.Dense(16, activation="relu", input_shape=(10,), name="hidden"),
    keras.layers.Dropout(0.2),
    keras.layers.Dense(2, activation="softmax", name="probs"),
])
model.compile(optimizer=tf.train.AdamOptimizer(0.01),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.summary()
print([layer.name for layer in model.layers])
print(model.input.name, model.input.shape, model.output.name, model.output.shape)
print([v.name for v in model.trainable_weights])


class PrintEpoch(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        print("epoch %d loss %.4f acc %.4f" % (epoch, logs["loss"], logs["acc"]))


history = model.fit(x, y_cls, batch_size=32, epochs=4, verbose=0, shuffle=False,
                    callbacks=[PrintEpoch()])
print(sorted(history.history.keys()), len(history.history["loss"]))
loss, acc = model.evaluate(x, y_cls, batch_size=64, verbose=0)
print("evaluate %.4f %.4f" % (loss, acc))
pred = model.predict(x[:5])
print("predict", pred.shape, pred.dtype, np.round(pred.sum(axis=1), 5))

# functional API, regression, validation split, early stopping
inputs = keras.Input(shape=(10,), name="features")
h = keras.layers.Dense(8, activation="tanh", name="d1")(inputs)
h2 = keras.layers.Dense(8, activation="tanh", name="d2")(h)
merged = keras.layers.concatenate([h, h2], name="cat")
out = keras.layers.Dense(1, name="out")(merged)
reg = keras.Model(inputs=inputs, outputs=out, name="regressor")
reg.compile(optimizer=keras.optimizers.SGD(lr=0.05, momentum=0.9), loss="mse",
            metrics=["mae"])
print(reg.name, [layer.name for layer in reg.layers], reg.count_params())
stop = keras.callbacks.EarlyStopping(monitor="val_loss", patience=2)
hist = reg.fit(x, y_reg, batch_size=16, epochs=5, validation_split=0.25, verbose=0,
               shuffle=False, callbacks=[stop])
print(sorted(hist.history.keys()))
for i, (loss_i, vl) in enumerate(zip(hist.history["loss"], hist.history["val_loss"])):
    print("reg epoch %d loss %.4f val_loss %.4f" % (i, loss_i, vl))

tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "reg_weights.h5")
reg.save_weights(path)
before = reg.predict(x[:3])
clone = keras.Model(inputs=inputs, outputs=out)
reg2_in = keras.Input(shape=(10,), name="features")
a = keras.layers.Dense(8, activation="tanh", name="d1")(reg2_in)
b = keras.layers.Dense(8, activation="tanh", name="d2")(a)
reg2 = keras.Model(reg2_in, keras.layers.Dense(1, name="out")(
    keras.layers.concatenate([a, b], name="cat")))
reg2.load_weights(path)
after = reg2.predict(x[:3])
print("h5 weights restored:", np.allclose(before, after, atol=1e-6))
print("reg2 weights", [v.name for v in reg2.weights][:4])

# the Keras graph is a TF graph: run its tensors in the Keras session
sess = keras.backend.get_session()
feat = sess.run(h, {inputs: x[:2]})
print("session features", feat.shape, np.allclose(feat, keras.Model(inputs, h).predict(x[:2]),
                                                   atol=1e-6))
print("learning_phase", keras.backend.learning_phase().name)
print(keras.backend.floatx(), keras.backend.image_data_format(), keras.backend.epsilon())
