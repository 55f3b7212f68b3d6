"""Multi-tower training (cifar10_multi_gpu_train.py style, 2016-2018) on CPU devices:
tf.app.flags + tf.app.run, tf.logging, towers under tf.device / tf.name_scope with
reuse_variables(), average_gradients, a gradient-reversal layer through
gradient_override_map, tf.custom_gradient, tf.stop_gradient, tf.scan / tf.while_loop /
TensorArray utilities, tf.train.MonitoredTrainingSession-free loop with a Saver."""
import numpy as np
import tensorflow as tf

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_integer("num_gpus", 2, "How many towers to use.")
tf.app.flags.DEFINE_integer("max_steps", 30, "Number of batches to run.")
tf.app.flags.DEFINE_float("learning_rate", 0.1, "Initial learning rate.")
tf.app.flags.DEFINE_string("tower_name", "tower", "Tower name prefix.")
tf.app.flags.DEFINE_boolean("log_device_placement", False, "Log placement.")


@tf.RegisterGradient("ReverseGrad")
def _reverse_grad(unused_op, grad):
    return [-grad]


def flip_gradient(x):
    g = tf.get_default_graph()
    with g.gradient_override_map({"Identity": "ReverseGrad"}):
        return tf.identity(x, name="flip")


@tf.custom_gradient
def clip_grad_layer(x):
    def grad(dy):
        return tf.clip_by_value(dy, -0.1, 0.1)
    return tf.identity(x), grad


def inference(x):
    w1 = tf.get_variable("w1", [4, 8], initializer=tf.truncated_normal_initializer(stddev=0.5))
    b1 = tf.get_variable("b1", [8], initializer=tf.constant_initializer(0.1))
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    h = clip_grad_layer(h)
    w2 = tf.get_variable("w2", [8, 1], initializer=tf.truncated_normal_initializer(stddev=0.5))
    return tf.matmul(h, w2)


def tower_loss(scope, x, y):
    pred = inference(x)
    loss = tf.reduce_mean(tf.square(pred - y), name="mse")
    tf.add_to_collection("losses", loss)
    losses = tf.get_collection("losses", scope)
    total_loss = tf.add_n(losses, name="total_loss")
    tf.summary.scalar(scope + "loss", total_loss)
    return total_loss


def average_gradients(tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def main(argv=None):
    tf.logging.set_verbosity(tf.logging.ERROR)
    print("flags", FLAGS.num_gpus, FLAGS.max_steps, FLAGS.learning_rate, FLAGS.tower_name)
    rng = np.random.RandomState(6)
    data_x = rng.randn(128, 4).astype(np.float32)
    data_y = (np.sin(data_x[:, :1]) + data_x[:, 1:2] ** 2).astype(np.float32)
    with tf.Graph().as_default(), tf.device("/cpu:0"):
        tf.set_random_seed(6)
        global_step = tf.get_variable("global_step", [], initializer=tf.constant_initializer(0),
                                      trainable=False, dtype=tf.int64)
        opt = tf.train.GradientDescentOptimizer(FLAGS.learning_rate)
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.float32, [None, 1])
        xs, ys = tf.split(x, FLAGS.num_gpus), tf.split(y, FLAGS.num_gpus)
        tower_grads = []
        with tf.variable_scope(tf.get_variable_scope()):
            for i in range(FLAGS.num_gpus):
                with tf.device("/cpu:0"):
                    with tf.name_scope("%s_%d" % (FLAGS.tower_name, i)) as scope:
                        loss = tower_loss(scope, xs[i], ys[i])
                        tf.get_variable_scope().reuse_variables()
                        summaries = tf.get_collection(tf.GraphKeys.SUMMARIES, scope)
                        grads = opt.compute_gradients(loss)
                        tower_grads.append(grads)
        print("tower loss", loss.name, [s.name for s in summaries])
        grads = average_gradients(tower_grads)
        print("grads", [(g.name, v.op.name) for g, v in grads])
        apply_op = opt.apply_gradients(grads, global_step=global_step)
        variable_averages = tf.train.ExponentialMovingAverage(0.999, global_step)
        # (cifar10_multi_gpu_train groups the two unordered: TF itself then reads the
        # weights before or after the step at random; order them)
        with tf.control_dependencies([apply_op]):
            train_op = tf.group(apply_op, variable_averages.apply(tf.trainable_variables()))

        # utilities: gradient reversal, stop_gradient, scan, while_loop + TensorArray
        z = tf.constant([1.0, 2.0, 3.0])
        flipped = tf.reduce_sum(flip_gradient(z) * z + tf.stop_gradient(z) * z)
        g_flip = tf.gradients(flipped, z)[0]
        cum = tf.scan(lambda a, v: a * 0.5 + v, z, initializer=0.0)

        def body(i, ta):
            return i + 1, ta.write(i, tf.cast(i * i, tf.float32))

        _, ta = tf.while_loop(lambda i, ta: i < 4, body,
                              [tf.constant(0), tf.TensorArray(tf.float32, size=4)])
        squares = ta.stack()
        total = tf.foldl(lambda a, v: a + v, squares)
        print("flip op", flipped.op.name, "scan", cum.name, "squares", squares.shape)

        config = tf.ConfigProto(allow_soft_placement=True,
                                log_device_placement=FLAGS.log_device_placement)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(FLAGS.max_steps):
                _, loss_value = sess.run([train_op, loss], {x: data_x, y: data_y})
                assert not np.isnan(loss_value), "Model diverged with loss = NaN"
                if step % 10 == 0 or step + 1 == FLAGS.max_steps:
                    print("step %d, loss = %.4f" % (step, loss_value))
            print("global_step", sess.run(global_step))
            print("g_flip", sess.run(g_flip), "cum", sess.run(cum))
            print("squares", sess.run(squares), "total", sess.run(total))
            avg = variable_averages.average(tf.trainable_variables()[0])
            print("ema", avg.op.name, np.round(sess.run(avg)[0, :3], 4))


if __name__ == "__main__":
    tf.app.run()
